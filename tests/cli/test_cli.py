#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Scenario tests of the `cudaload` command-line tool (docs/cli.md).

Every test runs the real executable as a subprocess and checks what a user or
a script driving it would see: exit status, what is on stdout (the report and
nothing else) and on stderr (errors and warnings), JSON/YAML structure, and
the text layouts.

    python3 tests/cli/test_cli.py --cli build/tools/cudaload \
        --fixtures build/fixtures [--emulator scripts/wine-run] [unittest args]

--emulator may be given more than once (a wrapper followed by its own
arguments). When the tool is a Windows .exe run under Wine, paths passed to
it are written as Wine sees them (Z:\\...) and paths it prints are mapped
back. Tests that need the fixture trees skip, with the reason printed, when
the trees are absent. Only the standard library is needed; the YAML check
uses PyYAML when it is importable and skips otherwise.
"""

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

# Filled in by main() from the command line.
CLI = []  # emulator words followed by the tool
CLI_IS_WINDOWS = False
FIXTURES = None  # Path or None
PRINT_ARGS = None  # the cli_print_args child (tests/cli/print_args.c), or None
TIMEOUT_S = 120

SOURCE_ROOT = Path(__file__).resolve().parents[2]

SCAN_LIBRARY_KEYS = (
    "name",
    "family",
    "major",
    "cuda_major",
    "version",
    "version_source",
    "version_file",
    "path",
    "root",
)
SCAN_ROOT_KEYS = ("path", "origin", "tier", "status")
INSPECT_FILE_KEYS = (
    "path",
    "format",
    "machine",
    "bits",
    "soname",
    "needed",
    "runpath",
    "rpath",
    "version",
    "symbolic",
    "nodeflib",
    "versioned",
    "version_definitions",
    "version_needs",
    "exports",
    "imports",
)
VERSION_SOURCES = {"dist-info", "file-name", "header", "versioninfo", "none"}
TEXT_HEADER = ["NAME", "FAMILY", "MAJOR", "VERSION", "SOURCE", "PATH"]


def header_version():
    """The version the tool must print: the public header's."""
    text = (SOURCE_ROOT / "include" / "cudaload.h").read_text()
    parts = []
    for what in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define CUDALOAD_VERSION_%s (\d+)" % what, text, re.M)
        if not m:
            raise RuntimeError("include/cudaload.h has no CUDALOAD_VERSION_" + what)
        parts.append(m.group(1))
    return ".".join(parts)


# --------------------------------------------------------------------------
# Paths as the tool sees them
# --------------------------------------------------------------------------


def to_cli(path):
    """A host path as the tool must be given it."""
    path = os.path.abspath(str(path))
    if CLI_IS_WINDOWS:
        return "Z:" + path.replace("/", "\\")
    return path


def split_printed(line):
    """The words of a command the tool printed, as its shell reads them: sh
    on Linux; on Windows cmd's rules for what the tool writes (a word in
    double quotes when it needs them, backslashes as they are)."""
    if not CLI_IS_WINDOWS:
        return shlex.split(line)
    return [m.group(1) if m.group(1) is not None else m.group(2)
            for m in re.finditer(r'"([^"]*)"|(\S+)', line)]


def from_cli(path):
    """A path printed by the tool as a host path (None stays None)."""
    if path is None:
        return None
    if CLI_IS_WINDOWS:
        m = re.match(r"^[Zz]:(\\.*)$", path)
        if m:
            return m.group(1).replace("\\", "/")
    return path


def same_file(printed, expected):
    """Whether a path the tool printed names the host file `expected`."""
    return os.path.realpath(from_cli(printed)) == os.path.realpath(str(expected))


# --------------------------------------------------------------------------
# Running the tool
# --------------------------------------------------------------------------


class Result:
    def __init__(self, args, proc):
        self.args = args
        self.rc = proc.returncode
        self.stdout = proc.stdout.decode("utf-8", "replace")
        self.stderr = proc.stderr.decode("utf-8", "replace")
        if CLI_IS_WINDOWS:
            # A Windows program writes text-mode \r\n.
            self.stdout = self.stdout.replace("\r\n", "\n")
            self.stderr = self.stderr.replace("\r\n", "\n")

    def describe(self):
        return "cudaload %s\n  exit %s\n  stdout: %r\n  stderr: %r" % (
            " ".join(self.args),
            self.rc,
            self.stdout[:2000],
            self.stderr[:2000],
        )


def run_cli(*args, cwd=None):
    proc = subprocess.run(
        CLI + list(args),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=TIMEOUT_S,
    )
    return Result(list(args), proc)


class CliTestCase(unittest.TestCase):
    maxDiff = None

    def skip_under_qemu(self, why):
        """qemu-user runs the tool, not what it starts: a child it execs,
        or a file built for this host, is not the target's."""
        if len(CLI) > 1 and not CLI_IS_WINDOWS and "qemu" in os.path.basename(CLI[0]):
            self.skipTest("the tool runs under qemu-user (%s): %s" % (CLI[0], why))

    def traced(self, args, trace, env=None, rcs=(0,)):
        """The lines `strace -f -e trace=TRACE` logs for the tool run with
        args: what a run asks of the system, counted, never timed. Skipped,
        saying why, where it cannot be: not the Linux tool, under qemu-user,
        no strace."""
        if CLI_IS_WINDOWS or os.name == "nt":
            self.skipTest("counts the Linux tool's system calls")
        if len(CLI) > 1:  # qemu-user, valgrind (the valgrind tier)
            self.skipTest("the tool runs under %s, whose own system calls strace would count "
                          "(the native tier counts them)" % os.path.basename(CLI[0]))
        strace = shutil.which("strace")
        if not strace:
            self.skipTest("strace is not installed (apt-get install strace)")
        log = self.tmpdir() / "strace.log"
        # LeakSanitizer stops a traced process (the clang tier's build):
        # leaks are the other tests' to find.
        env = dict(os.environ if env is None else env)
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
        r = subprocess.run([strace, "-f", "-e", "trace=" + trace, "-o", str(log)] + CLI +
                           list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT_S)
        if r.returncode != 0 and not log.exists():
            self.skipTest("strace cannot trace here: %s" % r.stderr.decode(errors="replace")[:200])
        self.assertIn(r.returncode, rcs, r.stderr.decode(errors="replace"))
        return log.read_text(errors="replace").splitlines()

    def run_ok(self, *args, rc=0):
        r = run_cli(*args)
        self.assertEqual(r.rc, rc, r.describe())
        return r

    def assert_usage_error(self, args, names=()):
        """Exit 2, nothing on stdout, a message on stderr naming `names`."""
        r = run_cli(*args)
        self.assertEqual(r.rc, 2, r.describe())
        self.assertEqual(r.stdout, "", "a usage error printed to stdout\n" + r.describe())
        self.assertNotEqual(r.stderr.strip(), "", "no message on stderr\n" + r.describe())
        for name in names:
            self.assertIn(name, r.stderr, "stderr does not name %r\n%s" % (name, r.describe()))
        return r

    def parse_json(self, r):
        """stdout must be one JSON document and nothing else."""
        try:
            return json.loads(r.stdout)
        except ValueError as e:
            self.fail("stdout is not one JSON document (%s)\n%s" % (e, r.describe()))

    def tmpdir(self):
        d = tempfile.mkdtemp(prefix="cudaload-cli-")
        self.addCleanup(shutil.rmtree, d, True)
        return Path(d)

    def fixture(self, *parts):
        if FIXTURES is None:
            self.skipTest("no --fixtures folder given")
        path = FIXTURES.joinpath(*parts)
        if not path.exists():
            self.skipTest("fixture %s not found (build the fixtures first)" % path)
        return path


# --------------------------------------------------------------------------
# Checks of the scan report
# --------------------------------------------------------------------------


def check_scan_schema(test, doc, target=None):
    test.assertIsInstance(doc, dict)
    test.assertEqual(doc.get("schema_version"), 1, doc)
    test.assertIn(doc.get("target"), ("linux", "windows"), doc)
    if target is not None:
        test.assertEqual(doc["target"], target)
    test.assertIsInstance(doc.get("roots"), list, doc)
    test.assertIsInstance(doc.get("libraries"), list, doc)
    for root in doc["roots"]:
        for key in SCAN_ROOT_KEYS:
            test.assertIn(key, root, "root without %r: %r" % (key, root))
            test.assertIsInstance(root[key], str, "root %r: %r" % (key, root))
    for lib in doc["libraries"]:
        for key in SCAN_LIBRARY_KEYS:
            test.assertIn(key, lib, "library without %r: %r" % (key, lib))
        for key in ("name", "family", "version_source", "path"):
            test.assertIsInstance(lib[key], str, "library %r: %r" % (key, lib))
            test.assertNotEqual(lib[key], "", "library %r empty: %r" % (key, lib))
        test.assertIsInstance(lib["major"], int, lib)
        test.assertGreaterEqual(lib["major"], 1, lib)
        # cuda_major: 0 in C is null in JSON.
        if lib["cuda_major"] is not None:
            test.assertIsInstance(lib["cuda_major"], int, lib)
            test.assertGreater(lib["cuda_major"], 0, "cuda_major 0 must be null: %r" % lib)
        test.assertIn(lib["version_source"], VERSION_SOURCES, lib)
        # version: "" in C is null in JSON; null exactly when nothing told it.
        if lib["version_source"] == "none":
            test.assertIsNone(lib["version"], lib)
        else:
            test.assertIsInstance(lib["version"], str, lib)
            test.assertNotEqual(lib["version"], "", "an empty version must be null: %r" % lib)
            # NVVM and cuFile are versioned apart from their ABI major (the
            # catalog's version_apart_from_abi: libnvvm.so.4 of nvidia-nvvm
            # 13.0.88); the driver and CUPTI by other numbers.
            test.assertTrue(lib["version"].startswith("%d." % lib["major"]) or
                            lib["family"] in ("driver", "cupti", "nvvm", "cufile"),
                            "version does not start with the major: %r" % lib)
        test.assertIsInstance(lib["root"], int, lib)
        test.assertTrue(0 <= lib["root"] < len(doc["roots"]), "root index out of range: %r" % lib)


def library_named(doc, name, major=None):
    found = [
        lib for lib in doc["libraries"] if lib["name"] == name and (major is None or lib["major"] == major)
    ]
    return found


def parse_text_table(test, stdout):
    """Split a text scan report into (header offsets, rows, trailer lines).

    Checks the layout: the header, each row's fields starting at the header's
    column offsets, a blank line, then the trailer."""
    lines = stdout.split("\n")
    test.assertTrue(stdout.endswith("\n"), "the report does not end with a newline: %r" % stdout)
    lines = lines[:-1]
    test.assertGreater(len(lines), 0, "empty report")
    header = lines[0]
    words = header.split()
    test.assertEqual(words, TEXT_HEADER, "header line: %r" % header)
    test.assertFalse(header.startswith(" "), header)
    offsets = []
    pos = 0
    for word in words:
        idx = header.index(word, pos)
        if offsets:
            test.assertGreaterEqual(idx - pos, 2, "header columns separated by fewer than two spaces: %r" % header)
        offsets.append(idx)
        pos = idx + len(word)
    rows = []
    i = 1
    while i < len(lines) and lines[i] != "":
        line = lines[i]
        fields = []
        for k, off in enumerate(offsets):
            test.assertGreater(len(line), off, "row shorter than column %s: %r\n%s" % (words[k], line, stdout))
            test.assertNotEqual(line[off], " ", "column %s does not start at offset %d in %r\n%s" % (words[k], off, line, stdout))
            if k > 0:
                test.assertEqual(line[off - 2 : off], "  ", "column %s not preceded by two spaces in %r\n%s" % (words[k], line, stdout))
            end = offsets[k + 1] if k + 1 < len(offsets) else len(line)
            fields.append(line[off:end].rstrip() if k + 1 == len(offsets) else line[off:end].strip())
        # No field of the earlier columns may run into the next column.
        for k in range(len(offsets) - 1):
            chunk = line[offsets[k] : offsets[k + 1]]
            test.assertTrue(chunk.endswith("  "), "column %s overflows into %s in %r" % (words[k], words[k + 1], line))
        rows.append(dict(zip(words, fields)))
        i += 1
    test.assertLess(i, len(lines), "no blank line and summary after the table:\n" + stdout)
    trailer = lines[i + 1 :]
    test.assertGreater(len(trailer), 0, "no summary line:\n" + stdout)
    return offsets, rows, trailer


SUMMARY_RE = re.compile(r"^(\d+) librar(?:y|ies) in (\d+) roots?$")


def summary_counts(test, trailer, stdout):
    m = SUMMARY_RE.match(trailer[0])
    test.assertIsNotNone(m, "summary line %r is not 'N libraries in M roots'\n%s" % (trailer[0], stdout))
    return int(m.group(1)), int(m.group(2))


# --------------------------------------------------------------------------
# Independent readings of ELF and PE files (the oracle for `inspect`)
# --------------------------------------------------------------------------

ELF_MACHINES = {3: "i386", 62: "x86_64", 183: "aarch64"}
PE_MACHINES = {0x8664: "x86_64", 0x14C: "i386", 0xAA64: "aarch64"}


def elf_header(path):
    """(bits, machine or None) from an ELF header, or None if not ELF."""
    with open(path, "rb") as f:
        head = f.read(20)
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return None
    bits = {1: 32, 2: 64}.get(head[4])
    order = "little" if head[5] == 1 else "big"
    machine = int.from_bytes(head[18:20], order)
    name = ELF_MACHINES.get(machine)
    if machine == 21 and order == "little":
        name = "ppc64le"
    return bits, name


def readelf_dynamic(path):
    """{'soname','needed','runpath','rpath'} as binutils readelf sees them,
    or None when readelf is missing or cannot read the file."""
    readelf = shutil.which("readelf")
    if not readelf:
        return None
    proc = subprocess.run([readelf, "-d", "-W", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0 or proc.stderr.strip():
        return None
    out = proc.stdout.decode("utf-8", "replace")
    info = {"soname": None, "needed": [], "runpath": None, "rpath": None}
    for line in out.splitlines():
        m = re.search(r"\((SONAME|NEEDED|RUNPATH|RPATH)\)\s+[^\[]*\[(.*)\]\s*$", line)
        if not m:
            continue
        tag, value = m.group(1), m.group(2)
        if tag == "NEEDED":
            info["needed"].append(value)
        else:
            info[tag.lower()] = value
    return info


def pe_header(path):
    """(bits, machine or None, fixed file version or None) of a PE file, or
    None if not PE. The version is read from the VS_FIXEDFILEINFO block
    (signature 0xFEEF04BD) wherever it lies in the file."""
    data = Path(path).read_bytes()
    if len(data) < 0x40 or data[:2] != b"MZ":
        return None
    off = int.from_bytes(data[0x3C:0x40], "little")
    if data[off : off + 4] != b"PE\0\0":
        return None
    machine = int.from_bytes(data[off + 4 : off + 6], "little")
    magic = int.from_bytes(data[off + 24 : off + 26], "little")
    bits = {0x10B: 32, 0x20B: 64}.get(magic)
    version = None
    sig = data.find(b"\xbd\x04\xef\xfe")
    if sig >= 0 and sig + 16 <= len(data):
        ms = int.from_bytes(data[sig + 8 : sig + 12], "little")
        ls = int.from_bytes(data[sig + 12 : sig + 16], "little")
        version = "%d.%d.%d.%d" % (ms >> 16, ms & 0xFFFF, ls >> 16, ls & 0xFFFF)
    return bits, PE_MACHINES.get(machine), version


def objdump_imports(path):
    """DLL names a PE file imports, in file order, per objdump; None when no
    objdump that reads PE is installed."""
    for tool in ("x86_64-w64-mingw32-objdump", "objdump"):
        exe = shutil.which(tool)
        if not exe:
            continue
        proc = subprocess.run([exe, "-p", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            continue
        out = proc.stdout.decode("utf-8", "replace")
        return re.findall(r"^\s*DLL Name: (\S+)\s*$", out, re.M)
    return None


def files_with_magic(top, magic, limit=40):
    """Regular files (not symlinks) under `top` whose content starts with
    `magic`, sorted, at most `limit`."""
    found = []
    for dirpath, dirnames, filenames in os.walk(str(top)):
        dirnames.sort()
        for name in sorted(filenames):
            p = os.path.join(dirpath, name)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            with open(p, "rb") as f:
                if f.read(len(magic)) == magic:
                    found.append(Path(p))
    return found[:limit]


# ==========================================================================
# The tool as a whole: --version, --help, help, usage errors
# ==========================================================================


class Usage(CliTestCase):
    def test_version(self):
        r = self.run_ok("--version")
        self.assertEqual(r.stdout, "cudaload %s\n" % header_version(), r.describe())
        self.assertEqual(r.stderr, "", r.describe())

    def test_short_version(self):
        self.assertEqual(self.run_ok("-V").stdout, self.run_ok("--version").stdout)

    def test_short_help(self):
        self.assertEqual(self.run_ok("-h").stdout, self.run_ok("--help").stdout)
        self.assertEqual(self.run_ok("scan", "-h").stdout, self.run_ok("scan", "--help").stdout)

    def test_help_without_command(self):
        self.assertEqual(self.run_ok("help").stdout, self.run_ok("--help").stdout)

    def check_help(self, args, must_mention):
        r = self.run_ok(*args)
        self.assertEqual(r.stderr, "", "help wrote to stderr\n" + r.describe())
        self.assertGreater(len(r.stdout.strip()), 0, r.describe())
        for word in must_mention:
            self.assertRegex(r.stdout, r"(?<![\w-])%s(?![\w-])" % re.escape(word),
                             "help does not mention %r\n%s" % (word, r.describe()))
        return r

    def test_tool_help(self):
        r = self.check_help(["--help"], ["--help", "-h", "--version", "-V", "scan", "inspect", "help"])
        self.assertIn("usage", r.stdout.lower())

    SCAN_HELP = ["--root", "-r", "--no-defaults", "--target", "--format", "--help", "-h",
                 "host", "linux", "windows", "text", "json", "yaml"]
    INSPECT_HELP = ["--format", "--symbols", "--help", "-h", "text", "json"]

    def test_scan_help(self):
        self.check_help(["scan", "--help"], self.SCAN_HELP)

    def test_help_scan(self):
        a = self.check_help(["help", "scan"], self.SCAN_HELP)
        b = run_cli("scan", "--help")
        self.assertEqual(a.stdout, b.stdout, "'help scan' and 'scan --help' differ")

    def test_inspect_help(self):
        self.check_help(["inspect", "--help"], self.INSPECT_HELP)

    def test_help_inspect(self):
        a = self.check_help(["help", "inspect"], self.INSPECT_HELP)
        b = run_cli("inspect", "--help")
        self.assertEqual(a.stdout, b.stdout, "'help inspect' and 'inspect --help' differ")

    def test_help_unknown_command(self):
        self.assert_usage_error(["help", "frobnicate"], ["frobnicate"])

    def test_no_command(self):
        # Every command the tool has is named, not a list kept by hand.
        self.assert_usage_error([], ["scan", "inspect", "env", "exec", "probe", "doctor", "help"])

    def test_help_lists_every_command_and_exit_status(self):
        r = self.run_ok("--help")
        for name in ("scan", "inspect", "env", "exec", "probe", "doctor"):
            self.assertRegex(r.stdout, r"(?m)^  %s\s+\S" % name, "COMMANDS lacks %s\n%s" % (name, r.describe()))
            synopsis = run_cli("help", name).stdout.split("SYNOPSIS\n", 1)[1].split("\n\n", 1)[0]
            self.assertIn(synopsis, r.stdout, "the synopsis of %s is not in --help" % name)
        for code in ("0", "1", "2", "3", "4", "5", "6", "126", "127"):
            self.assertRegex(r.stdout, r"(?m)^  %s\s+\S" % code, "EXIT STATUS lacks %s" % code)

    def test_docs_agree_with_the_tool(self):
        """docs/cli.md copies the tool's synopses and exit codes; the README
        links only documents that exist and stays short."""
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        try:
            import cli_docs
        finally:
            sys.path.pop(0)
        problems = cli_docs.check(CLI, write=False)
        self.assertEqual(problems, [], "\n".join(problems) +
                         "\n(tests/cli/cli_docs.py --cli TOOL --write updates the documents)")

    def test_unknown_command(self):
        self.assert_usage_error(["frobnicate"], ["frobnicate"])

    def test_unknown_tool_option(self):
        self.assert_usage_error(["--frobnicate"], ["--frobnicate"])

    def test_unknown_scan_option(self):
        self.assert_usage_error(["scan", "--no-defaults", "--frobnicate"], ["--frobnicate"])

    def test_unknown_inspect_option(self):
        self.assert_usage_error(["inspect", "--frobnicate", to_cli(__file__)], ["--frobnicate"])

    def test_scan_missing_root_argument(self):
        self.assert_usage_error(["scan", "--no-defaults", "--root"], ["--root"])

    def test_scan_missing_short_root_argument(self):
        self.assert_usage_error(["scan", "--no-defaults", "-r"], ["-r"])

    def test_scan_missing_format_argument(self):
        self.assert_usage_error(["scan", "--no-defaults", "--format"], ["--format"])

    def test_scan_missing_target_argument(self):
        self.assert_usage_error(["scan", "--no-defaults", "--target"], ["--target"])

    def test_scan_bad_format(self):
        self.assert_usage_error(["scan", "--no-defaults", "--format", "xml"], ["xml"])

    def test_scan_bad_target(self):
        self.assert_usage_error(["scan", "--no-defaults", "--target", "macos"], ["macos"])

    def test_scan_extra_argument(self):
        self.assert_usage_error(["scan", "--no-defaults", "stray"], ["stray"])

    def test_empty_path_arguments(self):
        # A relative path is resolved against the current folder (the
        # RelativePath tests of each command), but "" names no folder or
        # file: more likely an unset shell variable than a request.
        for args, option in ((["scan", "--no-defaults", "--root", ""], "--root"),
                             (["scan", "--no-defaults", "-r", ""], "--root"),
                             (["scan", "--no-defaults", "--root="], "--root"),
                             (["env", "--require", "cudnn", "--root", ""], "--root"),
                             (["exec", "--require", "cudnn", "--root", "", "--", "true"], "--root"),
                             (["probe", "--driver", ""], "--driver"),
                             (["probe", "--root", ""], "--root"),
                             (["doctor", "--manifest", ""], "--manifest"),
                             (["doctor", "--root", ""], "--root"),
                             (["inspect", ""], "FILE")):
            r = self.assert_usage_error(args, [option, "the path is empty"])
            self.assertIn("Try 'cudaload %s --help'." % args[0], r.stderr, r.describe())

    def test_inspect_without_files(self):
        self.assert_usage_error(["inspect"])

    def test_inspect_missing_format_argument(self):
        self.assert_usage_error(["inspect", to_cli(__file__), "--format"], ["--format"])

    def test_inspect_bad_format(self):
        # inspect has text and json only.
        self.assert_usage_error(["inspect", "--format", "yaml", to_cli(__file__)], ["yaml"])


# ==========================================================================
# scan, on folders made here
# ==========================================================================


class Scan(CliTestCase):
    def test_empty_root_json(self):
        root = self.tmpdir()
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(root), "--format", "json")
        self.assertEqual(r.stderr, "", r.describe())
        doc = self.parse_json(r)
        check_scan_schema(self, doc)
        self.assertEqual(doc["libraries"], [])
        self.assertEqual(len(doc["roots"]), 1, doc)
        self.assertTrue(same_file(doc["roots"][0]["path"], root), doc)
        self.assertEqual(doc["roots"][0]["origin"], "explicit")
        self.assertEqual(doc["roots"][0]["status"], "ok")

    def test_default_target_is_host(self):
        root = self.tmpdir()
        doc = self.parse_json(self.run_ok("scan", "--no-defaults", "-r", to_cli(root), "--format", "json"))
        self.assertEqual(doc["target"], "windows" if CLI_IS_WINDOWS else "linux")

    def test_target_option_sets_target(self):
        root = self.tmpdir()
        for target in ("linux", "windows"):
            doc = self.parse_json(self.run_ok("scan", "--no-defaults", "--root", to_cli(root),
                                              "--target", target, "--format", "json"))
            self.assertEqual(doc["target"], target)

    def test_empty_root_text(self):
        root = self.tmpdir()
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(root))
        self.assertEqual(r.stderr, "", r.describe())
        self.assertIn("\n\n", "\n" + r.stdout, r.describe())
        # The summary follows the (possibly empty) table and a blank line.
        tail = r.stdout.rstrip("\n").split("\n\n")[-1].split("\n")
        self.assertEqual(summary_counts(self, tail, r.stdout), (0, 1), r.describe())

    def test_format_text_is_default(self):
        root = self.tmpdir()
        a = self.run_ok("scan", "--no-defaults", "--root", to_cli(root))
        b = self.run_ok("scan", "--no-defaults", "--root", to_cli(root), "--format", "text")
        self.assertEqual(a.stdout, b.stdout)

    def test_option_equals_value(self):
        root = self.tmpdir()
        a = self.run_ok("scan", "--no-defaults", "--root", to_cli(root), "--format", "json")
        b = self.run_ok("scan", "--no-defaults", "--root=" + to_cli(root), "--format=json")
        self.assertEqual(a.stdout, b.stdout)

    def test_roots_in_order_given(self):
        first, second = self.tmpdir(), self.tmpdir()
        doc = self.parse_json(self.run_ok("scan", "--no-defaults", "--root", to_cli(first),
                                          "-r", to_cli(second), "--format", "json"))
        check_scan_schema(self, doc)
        self.assertEqual(len(doc["roots"]), 2, doc)
        self.assertTrue(same_file(doc["roots"][0]["path"], first), doc)
        self.assertTrue(same_file(doc["roots"][1]["path"], second), doc)

    def test_missing_root_json(self):
        missing = self.tmpdir() / "does-not-exist"
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(missing), "--format", "json", rc=3)
        doc = self.parse_json(r)  # the report is still printed, and alone on stdout
        check_scan_schema(self, doc)
        self.assertEqual(len(doc["roots"]), 1, doc)
        self.assertEqual(doc["roots"][0]["status"], "not found", doc)
        self.assertEqual(doc["libraries"], [])
        self.assertIn("cudaload: warning: root %s: not found" % to_cli(missing), r.stderr, r.describe())

    def test_missing_root_text(self):
        missing = self.tmpdir() / "does-not-exist"
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(missing), rc=3)
        self.assertIn("cudaload: warning: root %s: not found" % to_cli(missing), r.stderr, r.describe())
        self.assertNotIn("warning", r.stdout, "a warning on stdout\n" + r.describe())
        tail = r.stdout.rstrip("\n").split("\n\n")[-1].split("\n")
        self.assertEqual(summary_counts(self, tail, r.stdout), (0, 1), r.describe())
        self.assertIn("root not found: %s" % to_cli(missing), tail, r.describe())

    def test_missing_root_among_good_ones(self):
        good = self.tmpdir()
        missing = good / "nope"
        r = self.run_ok("scan", "--no-defaults", "-r", to_cli(good), "-r", to_cli(missing),
                        "--format", "json", rc=3)
        doc = self.parse_json(r)
        self.assertEqual([root["status"] for root in doc["roots"]], ["ok", "not found"], doc)

    def test_unreadable_root(self):
        if CLI_IS_WINDOWS:
            self.skipTest("POSIX permissions do not apply to a Windows program under Wine")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            self.skipTest("running as root: a mode-000 folder is still readable")
        root = self.tmpdir() / "locked"
        root.mkdir()
        root.chmod(0)
        self.addCleanup(root.chmod, stat.S_IRWXU)
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(root), "--format", "json", rc=3)
        doc = self.parse_json(r)
        self.assertEqual(doc["roots"][0]["status"], "unreadable", doc)
        self.assertIn("cudaload: warning: root %s:" % to_cli(root), r.stderr, r.describe())

    def test_root_writable_by_others_is_refused_unless_allowed(self):
        if CLI_IS_WINDOWS:
            self.skipTest("POSIX permission bits; the Windows check reads ACLs")
        root = self.tmpdir() / "planted"
        root.mkdir()
        (root / "libcudnn.so.9").write_bytes(b"\x7fELF")
        root.chmod(0o777)
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(root), "--format", "json", rc=3)
        doc = self.parse_json(r)
        self.assertEqual(doc["libraries"], [], "a library from a refused root was listed")
        self.assertIn("writable by other users", r.stderr, r.describe())
        self.assertIn("--allow-writable-roots", r.stderr)
        r = self.run_ok("scan", "--no-defaults", "--allow-writable-roots", "--root", to_cli(root),
                        "--format", "json")
        doc = self.parse_json(r)
        self.assertEqual([lib["name"] for lib in doc["libraries"]], ["cudnn"], r.describe())
        r = self.run_ok("env", "--require", "cudnn=9", "--no-defaults", "--root", to_cli(root), rc=4)
        self.assertIn("writable by other users", r.stderr, r.describe())

    def test_a_folder_others_can_rename_in_on_the_way_is_refused(self):
        # Issue 19, 5: site/nvidia, writable by every user without the
        # sticky bit, holds nvidia/cudnn/lib (bin on Windows): anyone could
        # rename cudnn and put a folder of his own in its place. Under Wine
        # the folder's DACL is made from its mode.
        if os.name == "nt":
            self.skipTest("POSIX modes")
        site = self.tmpdir() / "site"
        lib = site / "nvidia" / "cudnn" / ("bin" if CLI_IS_WINDOWS else "lib")
        lib.mkdir(parents=True)
        (lib / ("cudnn64_9.dll" if CLI_IS_WINDOWS else "libcudnn.so.9")).write_bytes(b"\x7fELF")
        (site / "nvidia").chmod(0o777)
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(site), "--format", "json", rc=3)
        self.assertEqual(self.parse_json(r)["libraries"], [], r.describe())
        for part in (to_cli(site / "nvidia") + ",", "rename", "--allow-writable-roots"):
            self.assertIn(part, r.stderr, r.describe())
        r = self.run_ok("scan", "--no-defaults", "--allow-writable-roots", "--root", to_cli(site),
                        "--format", "json")
        self.assertEqual([l["name"] for l in self.parse_json(r)["libraries"]], ["cudnn"], r.describe())
        if CLI_IS_WINDOWS:
            return  # a DACL has no sticky bit
        # Sticky: others may add folders there, not rename one they do not own.
        (site / "nvidia").chmod(0o1777)
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(site), "--format", "json")
        self.assertEqual([l["name"] for l in self.parse_json(r)["libraries"]], ["cudnn"], r.describe())

    def test_yaml_equals_json(self):
        try:
            import yaml  # noqa: F401  (PyYAML, optional)
        except ImportError:
            self.skipTest("PyYAML is not installed; the YAML output is not checked")
        root = self.tmpdir()
        missing = root / "missing"
        j = self.run_ok("scan", "--no-defaults", "-r", to_cli(root), "-r", to_cli(missing), "--format", "json", rc=3)
        y = self.run_ok("scan", "--no-defaults", "-r", to_cli(root), "-r", to_cli(missing), "--format", "yaml", rc=3)
        self.assertEqual(yaml.safe_load(y.stdout), self.parse_json(j), y.describe())

    def test_default_roots(self):
        # Without --no-defaults the host's default roots are listed after the
        # explicit one; missing default roots are not an error.
        root = self.tmpdir()
        r = self.run_ok("scan", "--root", to_cli(root), "--format", "json")
        doc = self.parse_json(r)
        check_scan_schema(self, doc)
        self.assertGreaterEqual(len(doc["roots"]), 1)
        self.assertTrue(same_file(doc["roots"][0]["path"], root), doc)
        self.assertEqual(doc["roots"][0]["origin"], "explicit")
        for other in doc["roots"][1:]:
            self.assertNotEqual(other["origin"], "explicit", doc)

    def test_the_environment_tier_is_the_python_on_path(self):
        """The active environment (docs/scan-contract.md, "Precedence"):
        VIRTUAL_ENV, CONDA_PREFIX, then the first python3 on PATH: a venv's
        root, or that interpreter's own site folders, never another
        installed Python's; all before the variables (CUDA_PATH)."""
        if CLI_IS_WINDOWS:
            self.skipTest("python3 on PATH and symbolic links: checked against a Linux build")
        tmp = Path(os.path.realpath(str(self.tmpdir())))
        prefix = tmp / "prefix"
        (prefix / "bin").mkdir(parents=True)
        (prefix / "bin" / "python3.11").write_text("#!not run\n")
        os.symlink("python3.11", str(prefix / "bin" / "python3"))
        for version in ("3.11", "3.12"):  # 3.12: another interpreter's
            (prefix / "lib" / ("python" + version) / "site-packages").mkdir(parents=True)
        venv = tmp / "venv"
        (venv / "bin").mkdir(parents=True)
        (venv / "pyvenv.cfg").write_text("home = %s\n" % (prefix / "bin"))
        (venv / "bin" / "python3").write_text("#!not run\n")
        cuda = tmp / "cuda"
        cuda.mkdir()
        home = tmp / "home"
        home.mkdir()

        def roots(path, **extra):
            env = {k: v for k, v in os.environ.items()
                   if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "CUDA_PATH", "CUDA_HOME",
                                "CUDNN_PATH")}
            # The emulator (valgrind) by name is looked up on PATH: last.
            emulator = [os.path.dirname(shutil.which(w)) for w in CLI[:1]
                        if len(CLI) > 1 and os.sep not in w and shutil.which(w)]
            env.update(PATH=":".join([path] + emulator), HOME=str(home), CUDA_PATH=str(cuda),
                       **extra)
            proc = subprocess.run(CLI + ["scan", "--format", "json"], env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=TIMEOUT_S)
            r = Result(["scan"], proc)
            self.assertEqual(r.rc, 0, r.describe())
            doc = self.parse_json(r)
            check_scan_schema(self, doc)
            return [(x["path"], x["origin"], x["tier"]) for x in doc["roots"]]

        got = roots("%s:/usr/bin:/bin" % (prefix / "bin"))
        self.assertEqual(got[:2], [
            (str(prefix / "lib" / "python3.11" / "site-packages"), "python3 on PATH", "environment"),
            (str(cuda), "CUDA_PATH", "variable")], got)
        self.assertNotIn("python3.12", " ".join(p for p, _, _ in got), got)
        got = roots("%s:%s" % (venv / "bin", prefix / "bin"))
        self.assertEqual(got[0], (str(venv), "python3 on PATH", "environment"), got)
        other = tmp / "activated"
        other.mkdir()
        got = roots("%s:%s" % (venv / "bin", prefix / "bin"), VIRTUAL_ENV=str(other))
        self.assertEqual(got[:3], [(str(other), "VIRTUAL_ENV", "environment"),
                                   (str(venv), "python3 on PATH", "environment"),
                                   (str(cuda), "CUDA_PATH", "variable")], got)
        # Relative PATH entries depend on the current folder: never used.
        got = roots("bin:%s" % (prefix / "bin"))
        self.assertEqual(got[0][1], "python3 on PATH", got)
        self.assertTrue(got[0][0].startswith(str(prefix)), got)

    def test_the_python_on_paths_imported_folders_are_roots(self):
        """What the interpreter on PATH imports beyond its own prefix is
        searched without --for (issue 41, item 4): pip install --user into
        PYTHONUSERBASE, a --target folder on PYTHONPATH, and the base
        interpreter's site-packages of a venv made with
        include-system-site-packages = true (a Docker image's Python)."""
        if CLI_IS_WINDOWS:
            self.skipTest("python3 on PATH and symbolic links: checked against a Linux build")
        tmp = Path(os.path.realpath(str(self.tmpdir())))
        prefix = tmp / "prefix"
        (prefix / "bin").mkdir(parents=True)
        (prefix / "bin" / "python3.11").write_text("#!not run\n")
        os.symlink("python3.11", str(prefix / "bin" / "python3"))
        base_site = prefix / "lib" / "python3.11" / "site-packages"
        base_site.mkdir(parents=True)
        # The standard library's landmark, by which a venv finds its base.
        (base_site.parent / "os.py").write_text("")
        user_site = tmp / "userbase" / "lib" / "python3.11" / "site-packages"
        user_site.mkdir(parents=True)
        target = tmp / "target"
        target.mkdir()
        venv = tmp / "venv"
        (venv / "bin").mkdir(parents=True)
        (venv / "bin" / "python3").write_text("#!not run\n")
        home = tmp / "home"
        home.mkdir()

        def roots(path, **extra):
            env = {k: v for k, v in os.environ.items()
                   if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "CUDA_PATH", "CUDA_HOME",
                                "CUDNN_PATH", "PYTHONPATH", "PYTHONUSERBASE",
                                "PYTHONNOUSERSITE", "PYTHONHOME")}
            emulator = [os.path.dirname(shutil.which(w)) for w in CLI[:1]
                        if len(CLI) > 1 and os.sep not in w and shutil.which(w)]
            env.update(PATH=":".join([path] + emulator), HOME=str(home), **extra)
            proc = subprocess.run(CLI + ["scan", "--format", "json"], env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=TIMEOUT_S)
            r = Result(["scan"], proc)
            self.assertEqual(r.rc, 0, r.describe())
            return [x["path"] for x in self.parse_json(r)["roots"]
                    if x["origin"] == "python3 on PATH"]

        plain = str(prefix / "bin") + ":/usr/bin:/bin"
        got = roots(plain, PYTHONUSERBASE=str(tmp / "userbase"), PYTHONPATH=str(target))
        self.assertIn(str(user_site), got)
        self.assertIn(str(target), got)
        got = roots(plain, PYTHONUSERBASE=str(tmp / "userbase"), PYTHONNOUSERSITE="1")
        self.assertNotIn(str(user_site), got)
        # A venv that includes its base's site-packages: the base's too.
        for system_site, expected in (("true", True), ("false", False)):
            (venv / "pyvenv.cfg").write_text(
                "home = %s\ninclude-system-site-packages = %s\nversion = 3.11.7\n"
                % (prefix / "bin", system_site))
            got = roots(str(venv / "bin") + ":/usr/bin:/bin",
                        PYTHONUSERBASE=str(tmp / "userbase"))
            self.assertEqual(got[0], str(venv), got)
            self.assertEqual(str(base_site) in got, expected, (system_site, got))
            self.assertEqual(str(user_site) in got, expected, (system_site, got))

    def test_relative_missing_root_is_reported_absolute(self):
        here = Path(os.path.realpath(str(self.tmpdir())))
        r = run_cli("scan", "--no-defaults", "--root", "nope", "--format", "json", cwd=str(here))
        self.assertEqual(r.rc, 3, r.describe())
        self.assertEqual(self.parse_json(r)["roots"],
                         [{"path": to_cli(here / "nope"), "origin": "explicit", "tier": "explicit",
                           "status": "not found"}])
        self.assertIn("cudaload: warning: root %s: not found" % to_cli(here / "nope"), r.stderr, r.describe())

    def test_relative_root_follows_the_shells_current_folder(self):
        # The current folder is $PWD when it names the same folder as "."
        # (what the user's shell shows, through symbolic links), else
        # getcwd(); ".." is resolved lexically, as cd does.
        if CLI_IS_WINDOWS:
            self.skipTest("$PWD and symbolic links: checked against a Linux build")
        real = Path(os.path.realpath(str(self.tmpdir())))
        (real / "lib").mkdir()
        link = Path(os.path.realpath(str(self.tmpdir()))) / "link"
        os.symlink(str(real), str(link))

        def root_path(pwd, spelling):
            proc = subprocess.run(CLI + ["scan", "--no-defaults", "--root", spelling, "--format", "json"],
                                  cwd=str(link), env=dict(os.environ, PWD=pwd), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
            r = Result(["scan", "--root", spelling], proc)
            self.assertIn(r.rc, (0, 3), r.describe())
            return self.parse_json(r)["roots"][0]["path"]

        self.assertEqual(root_path(str(link), "lib"), str(link / "lib"))
        self.assertEqual(root_path(str(link), "../elsewhere"), str(link.parent / "elsewhere"))
        # A stale $PWD (another folder), or one with "." or ".." in it, is
        # not the current folder.
        self.assertEqual(root_path(str(real.parent), "lib"), str(real / "lib"))
        self.assertEqual(root_path(str(link) + "/.", "lib"), str(real / "lib"))


# ==========================================================================
# scan, on the fixture trees
# ==========================================================================


class ScanFixtures(CliTestCase):
    def scan_json(self, root, target, rc=0):
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(root), "--target", target, "--format", "json", rc=rc)
        self.assertEqual(r.stderr, "", r.describe())
        doc = self.parse_json(r)
        check_scan_schema(self, doc, target)
        return doc

    def test_wheel_cudnn_from_dist_info(self):
        root = self.fixture("wheels-cu12", "site-packages")
        doc = self.scan_json(root, "linux")
        self.assertEqual(doc["roots"], [{"path": doc["roots"][0]["path"], "origin": "explicit",
                                        "tier": "explicit", "status": "ok"}])
        self.assertTrue(same_file(doc["roots"][0]["path"], root), doc)
        cudnn = library_named(doc, "cudnn", 8)
        self.assertEqual(len(cudnn), 1, "expected one cudnn 8 in %s\n%s" % (root, json.dumps(doc, indent=1)))
        lib = cudnn[0]
        self.assertEqual(lib["family"], "cudnn")
        self.assertEqual(lib["version"], "8.9.7.29")
        self.assertEqual(lib["version_source"], "dist-info")
        self.assertEqual(lib["cuda_major"], 12, "the -cu12 distribution gives CUDA 12: %r" % lib)
        vf = from_cli(lib["version_file"])
        self.assertEqual(os.path.basename(vf), "METADATA", lib)
        self.assertTrue(os.path.basename(os.path.dirname(vf)).endswith(".dist-info"), lib)
        self.assertTrue(os.path.isfile(vf), lib)
        self.assertEqual(lib["root"], 0)

    def test_wheel_paths_are_real_files_under_root(self):
        root = self.fixture("wheels-cu12", "site-packages")
        doc = self.scan_json(root, "linux")
        self.assertGreater(len(doc["libraries"]), 0)
        real_root = os.path.realpath(str(root))
        seen = set()
        for lib in doc["libraries"]:
            path = from_cli(lib["path"])
            self.assertTrue(os.path.isabs(path), lib)
            self.assertFalse(os.path.islink(path), "path must be the real file, not a link: %r" % lib)
            self.assertTrue(os.path.isfile(path), lib)
            self.assertTrue(path.startswith(real_root + os.sep), "%s is not under %s" % (path, real_root))
            self.assertNotIn(path, seen, "file listed twice: %s" % path)
            seen.add(path)
            self.assertRegex(os.path.basename(path), r"\.so(\.|$)", "a Linux scan reported %s" % path)

    def test_linux_scan_ignores_dlls(self):
        root = self.fixture("windows", "site-packages")
        doc = self.scan_json(root, "linux")
        for lib in doc["libraries"]:
            self.assertFalse(lib["path"].lower().endswith(".dll"), "a Linux scan reported %r" % lib)

    def test_windows_cudnn9(self):
        root = self.fixture("windows", "site-packages")
        doc = self.scan_json(root, "windows")
        hits = [lib for lib in doc["libraries"] if os.path.basename(from_cli(lib["path"])).lower() == "cudnn64_9.dll"]
        self.assertEqual(len(hits), 1, json.dumps(doc, indent=1))
        lib = hits[0]
        self.assertEqual((lib["name"], lib["family"], lib["major"]), ("cudnn", "cudnn", 9), lib)
        for other in doc["libraries"]:
            self.assertTrue(other["path"].lower().endswith(".dll"), "a Windows scan reported %r" % other)

    def test_windows_scan_ignores_so(self):
        root = self.fixture("wheels-cu12", "site-packages")
        doc = self.scan_json(root, "windows")
        for lib in doc["libraries"]:
            self.assertNotRegex(lib["path"], r"\.so(\.|$)", "a Windows scan reported %r" % lib)

    def test_short_root_option_is_the_same(self):
        root = self.fixture("wheels-cu12", "site-packages")
        a = self.run_ok("scan", "--no-defaults", "--root", to_cli(root), "--target", "linux", "--format", "json")
        b = self.run_ok("scan", "--no-defaults", "-r", to_cli(root), "--target", "linux", "--format", "json")
        self.assertEqual(a.stdout, b.stdout)

    def test_text_table_matches_json(self):
        root = self.fixture("wheels-cu12", "site-packages")
        doc = self.scan_json(root, "linux")
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(root), "--target", "linux")
        self.assertEqual(r.stderr, "", r.describe())
        _, rows, trailer = parse_text_table(self, r.stdout)
        self.assertEqual(len(rows), len(doc["libraries"]), r.stdout)
        for row, lib in zip(rows, doc["libraries"]):
            self.assertEqual(row["NAME"], lib["name"], row)
            self.assertEqual(row["FAMILY"], lib["family"], row)
            self.assertEqual(row["MAJOR"], str(lib["major"]), row)
            if lib["version"] is not None:
                self.assertEqual(row["VERSION"], lib["version"], row)
            self.assertEqual(row["SOURCE"], lib["version_source"], row)
            self.assertEqual(row["PATH"], lib["path"], row)
        self.assertEqual(summary_counts(self, trailer, r.stdout), (len(doc["libraries"]), 1))

    def test_two_fixture_roots(self):
        a = self.fixture("wheels-cu12", "site-packages")
        b = self.fixture("windows", "site-packages")
        r = self.run_ok("scan", "--no-defaults", "-r", to_cli(a), "-r", to_cli(b), "--target", "linux", "--format", "json")
        doc = self.parse_json(r)
        check_scan_schema(self, doc, "linux")
        self.assertEqual(len(doc["roots"]), 2)
        roots = [lib["root"] for lib in doc["libraries"]]
        self.assertEqual(roots, sorted(roots), "libraries not in root order")
        # Same inventory for the first root as when scanned alone.
        alone = self.scan_json(a, "linux")
        self.assertEqual([lib["path"] for lib in doc["libraries"] if lib["root"] == 0],
                         [lib["path"] for lib in alone["libraries"]])

    def test_yaml_equals_json_on_fixture(self):
        try:
            import yaml
        except ImportError:
            self.skipTest("PyYAML is not installed; the YAML output is not checked")
        root = self.fixture("wheels-cu12", "site-packages")
        doc = self.scan_json(root, "linux")
        y = self.run_ok("scan", "--no-defaults", "--root", to_cli(root), "--target", "linux", "--format", "yaml")
        self.assertEqual(y.stderr, "", y.describe())
        self.assertEqual(yaml.safe_load(y.stdout), doc)

    def test_relative_root_lists_what_the_absolute_root_lists(self):
        # People type relative paths: --root is resolved against the current
        # folder when it is parsed, and reported absolute.
        here = Path(os.path.realpath(str(self.fixture("wheels-cu12", "site-packages").parent)))
        absolute = to_cli(here / "site-packages")
        for fmt in ("json", "text"):
            expected = self.run_ok("scan", "--no-defaults", "--root", absolute, "--target", "linux", "--format", fmt)
            if fmt == "json":
                doc = self.parse_json(expected)
                self.assertGreater(len(doc["libraries"]), 0, expected.describe())
                self.assertEqual(doc["roots"][0]["path"], absolute, expected.describe())
            for spelling in ("site-packages", "./site-packages/", "no-such/../site-packages", "site-packages//."):
                r = run_cli("scan", "--no-defaults", "--root", spelling, "--target", "linux", "--format", fmt,
                            cwd=str(here))
                self.assertEqual((r.rc, r.stderr), (0, ""), r.describe())
                self.assertEqual(r.stdout, expected.stdout, "--root %s from %s\n%s" % (spelling, here, r.describe()))


# ==========================================================================
# inspect, on files made here (errors) and on the fixtures (the readers)
# ==========================================================================


def parse_inspect_text(test, stdout):
    """Blocks of 'PATH' followed by '  key   value' lines, separated by blank
    lines: [(path, {key: value})]. Checks that values line up in a block."""
    blocks = []
    for chunk in stdout.strip("\n").split("\n\n"):
        lines = chunk.split("\n")
        path = lines[0]
        test.assertFalse(path.startswith(" "), "block does not start with the path: %r" % chunk)
        fields = {}
        value_col = None
        for line in lines[1:]:
            m = re.match(r"^  (\w+)( {2,}|\s*$)(.*)$", line)
            test.assertIsNotNone(m, "line %r is not '  key  value'" % line)
            if m.group(3):
                col = m.start(3)
                if value_col is None:
                    value_col = col
                test.assertEqual(col, value_col, "values do not line up in block:\n%s" % chunk)
            fields[m.group(1)] = m.group(3)
        blocks.append((path, fields))
    return blocks


def check_inspect_schema(test, doc):
    test.assertIsInstance(doc, dict)
    test.assertEqual(doc.get("schema_version"), 1, doc)
    test.assertIsInstance(doc.get("files"), list, doc)
    test.assertIsInstance(doc.get("errors"), list, doc)
    for f in doc["files"]:
        for key in INSPECT_FILE_KEYS:
            test.assertIn(key, f, "file without %r: %r" % (key, f))
        test.assertIn(f["format"], ("elf", "pe"), f)
        test.assertIn(f["bits"], (32, 64), f)
        test.assertIsInstance(f["machine"], str, f)
        test.assertIsInstance(f["needed"], list, f)
        for key in ("soname", "runpath", "rpath", "version"):
            test.assertNotEqual(f[key], "", "an empty %s must be null: %r" % (key, f))
            test.assertTrue(f[key] is None or isinstance(f[key], str), f)
        for key in ("symbolic", "nodeflib", "versioned"):
            test.assertIsInstance(f[key], bool, f)
        for v in f["version_definitions"]:
            test.assertEqual(sorted(v), ["default", "name"], f)
            test.assertIsInstance(v["default"], bool, f)
        for n in f["version_needs"]:
            test.assertEqual(sorted(n), ["file", "versions"], f)
            test.assertTrue(all(isinstance(x, str) for x in n["versions"]), f)
        test.assertEqual(sorted(f["exports"]), ["count", "forwarders", "symbols", "versioned"], f)
        test.assertEqual(sorted(f["imports"]), ["count", "symbols", "versioned"], f)
        for kind, keys in (("exports", ["forward", "hidden", "name", "version", "weak"]),
                           ("imports", ["library", "name", "version", "weak"])):
            table = f[kind]
            test.assertLessEqual(table["versioned"], table["count"], f)
            if table["symbols"] is None:
                continue
            test.assertEqual(len(table["symbols"]), table["count"], f)
            test.assertEqual(sum(1 for x in table["symbols"] if x["version"]), table["versioned"], f)
            for sym in table["symbols"]:
                test.assertEqual(sorted(sym), keys, sym)
                test.assertNotEqual(sym["version"], "", "an empty version must be null: %r" % sym)
    for e in doc["errors"]:
        test.assertIsInstance(e.get("path"), str, e)
        test.assertIsInstance(e.get("error"), str, e)
        test.assertNotEqual(e["error"], "", e)


class Inspect(CliTestCase):
    def check_unreadable(self, path, reason=None):
        """inspect PATH fails with exit 3, naming the path on stderr, in both
        formats; the JSON report lists it under errors."""
        shown = to_cli(path)
        r = self.run_ok("inspect", shown, rc=3)
        self.assertEqual(r.stdout, "", "text report of a failed file\n" + r.describe())
        self.assertIn("cudaload: inspect: %s: " % shown, r.stderr, r.describe())
        if reason:
            self.assertIn(reason, r.stderr, r.describe())
        j = self.run_ok("inspect", "--format", "json", shown, rc=3)
        doc = self.parse_json(j)
        check_inspect_schema(self, doc)
        self.assertEqual(doc["files"], [], doc)
        self.assertEqual([e["path"] for e in doc["errors"]], [shown], doc)
        if reason:
            self.assertIn(reason, doc["errors"][0]["error"], doc)
        self.assertIn("cudaload: inspect: %s: " % shown, j.stderr, j.describe())
        return r

    def test_json_error_is_the_reason(self):
        # errors[].error is the reason alone; the path has its own field and
        # stderr reads "cudaload: inspect: PATH: ERROR".
        missing = to_cli(self.tmpdir() / "gone.so")
        r = self.run_ok("inspect", "--format", "json", missing, rc=3)
        err = self.parse_json(r)["errors"][0]
        self.assertNotIn(missing, err["error"], err)
        self.assertIn("cudaload: inspect: %s: %s\n" % (missing, err["error"]), r.stderr, r.describe())

    def test_missing_file(self):
        self.check_unreadable(self.tmpdir() / "no-such-lib.so")

    def test_directory(self):
        self.check_unreadable(self.tmpdir())

    def test_text_file(self):
        p = self.tmpdir() / "notes.txt"
        p.write_text("just some text, long enough to hold any header: " + "x" * 200 + "\n")
        self.check_unreadable(p, "not an ELF or PE file")

    def test_empty_file(self):
        p = self.tmpdir() / "empty.so"
        p.write_bytes(b"")
        self.check_unreadable(p)

    def test_truncated_elf(self):
        p = self.tmpdir() / "truncated.so"
        p.write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 9)
        self.check_unreadable(p)

    def test_truncated_pe(self):
        p = self.tmpdir() / "truncated.dll"
        p.write_bytes(b"MZ" + b"\0" * 0x3A + (0x40).to_bytes(4, "little") + b"PE\0\0\x64\x86")
        self.check_unreadable(p)

    def test_double_dash_ends_options(self):
        # A file whose name starts with '-' is a FILE after '--', not an
        # unknown option: exit 3 (not ELF or PE), not 2.
        d = self.tmpdir()
        (d / "-notes.txt").write_text("text\n" * 40)
        r = run_cli("inspect", "--", "-notes.txt", cwd=str(d))
        self.assertEqual(r.rc, 3, r.describe())
        self.assertIn("cudaload: inspect: -notes.txt: not an ELF or PE file", r.stderr, r.describe())

    def test_fifo_does_not_block(self):
        if CLI_IS_WINDOWS or not hasattr(os, "mkfifo"):
            self.skipTest("no FIFOs for a Windows program")
        p = self.tmpdir() / "pipe.so"
        os.mkfifo(str(p))
        # run_cli's timeout fails the test if the tool blocks opening it.
        self.check_unreadable(p)

    def test_good_and_bad_files_together(self):
        # A good file: this host's Python (ELF), else a fixture DLL.
        good, fmt = os.path.realpath(sys.executable), "elf"
        if CLI_IS_WINDOWS or elf_header(good) is None:
            dlls = files_with_magic(FIXTURES / "windows", b"MZ", limit=1) if FIXTURES and (FIXTURES / "windows").is_dir() else []
            if not dlls:
                self.skipTest("no ELF program on this host and no fixture DLL to inspect")
            good, fmt = str(dlls[0]), "pe"
        elf = good
        missing = self.tmpdir() / "gone.so"
        r = self.run_ok("inspect", "--format", "json", to_cli(elf), to_cli(missing), rc=3)
        doc = self.parse_json(r)
        check_inspect_schema(self, doc)
        self.assertEqual(len(doc["files"]), 1, doc)
        self.assertEqual(doc["files"][0]["format"], fmt)
        self.assertEqual([e["path"] for e in doc["errors"]], [to_cli(missing)], doc)
        self.assertIn("cudaload: inspect: %s: " % to_cli(missing), r.stderr, r.describe())
        self.assertNotIn(to_cli(elf) + ":", r.stderr, r.describe())
        t = self.run_ok("inspect", to_cli(elf), to_cli(missing), rc=3)
        blocks = parse_inspect_text(self, t.stdout)
        self.assertEqual([b[0] for b in blocks], [to_cli(elf)], t.describe())


    def test_real_cudnn_symbols(self):
        # The real toolkit's cuDNN 9: every export under the version node
        # named after its SONAME (cudnnCreate@@libcudnn.so.9), DT_SYMBOLIC.
        path = "/usr/local/cuda/lib64/libcudnn.so.9"
        if not os.path.isfile(path):
            self.skipTest("%s is not on this machine" % path)
        doc = self.parse_json(self.run_ok("inspect", "--symbols", "--format", "json", to_cli(path)))
        check_inspect_schema(self, doc)
        f = doc["files"][0]
        self.assertIs(f["symbolic"], True, f["path"])
        self.assertIs(f["versioned"], True, f["path"])
        self.assertIn({"name": "libcudnn.so.9", "default": True}, f["version_definitions"])
        create = [x for x in f["exports"]["symbols"] if x["name"] == "cudnnCreate"]
        self.assertEqual(create, [{"name": "cudnnCreate", "version": "libcudnn.so.9", "hidden": False,
                                   "weak": False, "forward": None}])
        self.assertEqual(f["exports"]["versioned"], f["exports"]["count"], "an unversioned cuDNN export")
        r = self.run_ok("inspect", "--symbols", to_cli(path))
        self.assertIn("\n  export    cudnnCreate@@libcudnn.so.9\n", r.stdout, r.describe())
        self.assertIn("\n  flags     symbolic\n", r.stdout, r.describe())
        self.assertIn("\n  defines   libcudnn.so.9 (default)\n", r.stdout, r.describe())

    def test_symbols_option_is_not_a_file(self):
        # --symbols is an option before '--' and a FILE after it.
        d = self.tmpdir()
        (d / "--symbols").write_text("text\n" * 40)
        r = run_cli("inspect", "--", "--symbols", cwd=str(d))
        self.assertEqual(r.rc, 3, r.describe())
        self.assertIn("cudaload: inspect: --symbols: not an ELF or PE file", r.stderr, r.describe())


class InspectFixtures(CliTestCase):
    def inspect_json(self, paths):
        r = self.run_ok("inspect", "--format", "json", *[to_cli(p) for p in paths])
        self.assertEqual(r.stderr, "", r.describe())
        doc = self.parse_json(r)
        check_inspect_schema(self, doc)
        self.assertEqual(doc["errors"], [])
        self.assertEqual(len(doc["files"]), len(paths), doc)
        return doc

    def fixture_files(self, subtree, magic):
        top = self.fixture(subtree)
        files = files_with_magic(top, magic)
        if not files:
            self.skipTest("no %r files under %s" % (magic, top))
        return files

    def test_elf_dynamic_section_matches_readelf(self):
        files = self.fixture_files("wheels-cu12", b"\x7fELF")
        expected = {}
        for p in files:
            info = readelf_dynamic(p)
            if info is not None:
                expected[p] = info
        if not expected:
            self.skipTest("readelf is not installed or read none of the fixture ELF files")
        paths = sorted(expected)
        doc = self.inspect_json(paths)
        for p, f in zip(paths, doc["files"]):
            self.assertTrue(same_file(f["path"], p), (p, f))
            self.assertEqual(f["format"], "elf", f)
            bits, machine = elf_header(p)
            self.assertEqual(f["bits"], bits, f)
            if machine is not None:
                self.assertEqual(f["machine"], machine, f)
            want = expected[p]
            self.assertEqual(f["soname"], want["soname"], "%s: soname" % p)
            self.assertEqual(f["needed"], want["needed"], "%s: needed" % p)
            self.assertEqual(f["runpath"], want["runpath"], "%s: runpath" % p)
            self.assertEqual(f["rpath"], want["rpath"], "%s: rpath" % p)
            self.assertIsNone(f["version"], f)
        self.assertTrue(any(expected[p]["soname"] for p in paths), "no fixture ELF has a SONAME: weak fixtures")

    def test_elf_text_block(self):
        files = self.fixture_files("wheels-cu12", b"\x7fELF")
        with_soname = [p for p in files if (readelf_dynamic(p) or {}).get("soname")]
        if not with_soname:
            self.skipTest("no fixture ELF with a SONAME readable by readelf")
        p = with_soname[0]
        doc = self.inspect_json([p])
        f = doc["files"][0]
        r = self.run_ok("inspect", to_cli(p))
        self.assertEqual(r.stderr, "", r.describe())
        blocks = parse_inspect_text(self, r.stdout)
        self.assertEqual(len(blocks), 1, r.stdout)
        path, fields = blocks[0]
        self.assertEqual(path, to_cli(p))
        self.assertEqual(fields.get("format"), "elf (%d-bit, %s)" % (f["bits"], f["machine"]), r.stdout)
        self.assertEqual(fields.get("soname"), f["soname"], r.stdout)
        if f["needed"]:
            self.assertEqual(fields.get("needed"), ", ".join(f["needed"]), r.stdout)
        if f["runpath"]:
            self.assertEqual(fields.get("runpath"), f["runpath"], r.stdout)

    def test_pe_matches_headers(self):
        files = self.fixture_files("windows", b"MZ")
        files = [p for p in files if pe_header(p) is not None]
        if not files:
            self.skipTest("no PE files in the windows fixture tree")
        doc = self.inspect_json(files)
        saw_version = False
        for p, f in zip(files, doc["files"]):
            bits, machine, version = pe_header(p)
            self.assertTrue(same_file(f["path"], p), (p, f))
            self.assertEqual(f["format"], "pe", f)
            self.assertEqual(f["bits"], bits, f)
            if machine is not None:
                self.assertEqual(f["machine"], machine, f)
            self.assertEqual(f["version"], version, "%s: VERSIONINFO" % p)
            saw_version = saw_version or version is not None
            self.assertIsNone(f["soname"], f)
            self.assertIsNone(f["runpath"], f)
            self.assertIsNone(f["rpath"], f)
            imports = objdump_imports(p)
            if imports is not None:
                self.assertEqual(f["needed"], imports, "%s: imported DLLs" % p)
        self.assertTrue(saw_version, "no fixture DLL has a VERSIONINFO: weak fixtures")

    def test_cudnn64_9_dll(self):
        top = self.fixture("windows", "site-packages")
        dlls = [p for p in files_with_magic(top, b"MZ", limit=10000) if p.name.lower() == "cudnn64_9.dll"]
        if not dlls:
            self.skipTest("no cudnn64_9.dll under %s" % top)
        f = self.inspect_json(dlls[:1])["files"][0]
        self.assertEqual((f["format"], f["machine"], f["bits"]), ("pe", "x86_64", 64), f)
        self.assertIsNotNone(f["version"], f)
        self.assertTrue(f["version"].startswith("9."), f)
        r = self.run_ok("inspect", to_cli(dlls[0]))
        _, fields = parse_inspect_text(self, r.stdout)[0]
        self.assertEqual(fields.get("format"), "pe (64-bit, x86_64)", r.stdout)
        self.assertEqual(fields.get("version"), f["version"], r.stdout)


    def inspect_one(self, path, *options):
        """The JSON entry and the text block of one file, with options."""
        doc = self.inspect_json_options([path], *options)
        r = self.run_ok("inspect", *options, to_cli(path))
        self.assertEqual(r.stderr, "", r.describe())
        return doc["files"][0], r.stdout

    def inspect_json_options(self, paths, *options):
        r = self.run_ok("inspect", "--format", "json", *options, *[to_cli(p) for p in paths])
        self.assertEqual(r.stderr, "", r.describe())
        doc = self.parse_json(r)
        check_inspect_schema(self, doc)
        self.assertEqual(doc["errors"], [])
        return doc

    def test_versioned_provider(self):
        # A version script with node libfoo.so.1 (named after the SONAME, as
        # NVIDIA's libraries name theirs) and foo@OLD kept hidden beside it.
        p = self.fixture("symbols", "versioned", "libfoo.so.1")
        f, text = self.inspect_one(p)
        self.assertEqual(f["version_definitions"],
                         [{"name": "OLD", "default": False}, {"name": "libfoo.so.1", "default": True}])
        self.assertIs(f["symbolic"], True)
        self.assertIs(f["nodeflib"], False)
        self.assertIs(f["versioned"], True)
        self.assertIsNone(f["exports"]["symbols"], "symbols listed without --symbols")
        self.assertEqual(f["exports"]["versioned"], f["exports"]["count"])
        self.assertEqual(f["exports"]["forwarders"], 0)
        blocks = parse_inspect_text(self, text)
        self.assertEqual(blocks[0][1].get("defines"), "OLD, libfoo.so.1 (default)", text)
        self.assertEqual(blocks[0][1].get("flags"), "symbolic", text)
        self.assertEqual(blocks[0][1].get("exports"), "%d (%d versioned)" % (f["exports"]["count"], f["exports"]["count"]), text)
        self.assertNotIn("export ", text)

        f, text = self.inspect_one(p, "--symbols")
        exports = {(x["name"], x["version"], x["hidden"]) for x in f["exports"]["symbols"]}
        for want in (("foo_bar", "libfoo.so.1", False), ("foo_baz", "libfoo.so.1", False),
                     ("foo", "libfoo.so.1", False), ("foo", "OLD", True)):
            self.assertIn(want, exports)
        self.assertNotIn("old_foo", {x[0] for x in exports}, "a local symbol is exported")
        for line in ("  export    foo_bar@@libfoo.so.1", "  export    foo@@libfoo.so.1",
                     "  export    foo@OLD"):
            self.assertIn("\n" + line + "\n", text)
        parse_inspect_text(self, text)  # still aligned blocks

    def test_versioned_consumer(self):
        p = self.fixture("symbols", "consumers", "libuses_foo.so")
        f, text = self.inspect_one(p, "--symbols")
        self.assertIn({"file": "libfoo.so.1", "versions": ["libfoo.so.1"]}, f["version_needs"])
        self.assertIs(f["nodeflib"], True)
        self.assertIs(f["symbolic"], False)
        self.assertEqual(f["version_definitions"], [])
        imports = {x["name"]: x for x in f["imports"]["symbols"]}
        self.assertEqual(imports["foo_bar"], {"name": "foo_bar", "version": "libfoo.so.1",
                                              "library": "libfoo.so.1", "weak": False})
        self.assertEqual(imports["foo"]["version"], "libfoo.so.1")
        self.assertIn("\n  requires  libfoo.so.1: libfoo.so.1\n", text)
        self.assertIn("\n  flags     nodeflib\n", text)
        self.assertIn("\n  import    foo_bar@libfoo.so.1 (libfoo.so.1)\n", text)
        self.assertIn("\n  export    uses_foo\n", text)

    def test_unversioned_provider_and_consumer(self):
        bar = self.fixture("symbols", "unversioned", "libbar.so.1")
        user = self.fixture("symbols", "consumers", "libuses_bar.so")
        doc = self.inspect_json_options([bar, user], "--symbols")
        provider, consumer = doc["files"]
        self.assertEqual(provider["version_definitions"], [])
        self.assertEqual({x["name"]: x["version"] for x in provider["exports"]["symbols"]},
                         {"bar_one": None, "bar_two": None})
        self.assertEqual(provider["exports"]["versioned"], 0)
        bar_one = [x for x in consumer["imports"]["symbols"] if x["name"] == "bar_one"]
        self.assertEqual(bar_one, [{"name": "bar_one", "version": None, "library": None, "weak": False}])
        self.assertNotIn("libbar.so.1", [n["file"] for n in consumer["version_needs"]])

    def test_pe_exports_forwarders_and_imports(self):
        foo = self.fixture("symbols", "windows", "foo.dll")
        user = self.fixture("symbols", "windows", "uses_foo.dll")
        doc = self.inspect_json_options([foo, user], "--symbols")
        provider, consumer = doc["files"]
        self.assertEqual(provider["exports"]["count"], 2, "foo_baz is exported by ordinal only")
        self.assertEqual(provider["exports"]["forwarders"], 1)
        self.assertEqual(provider["exports"]["versioned"], 0)
        self.assertIn({"name": "foo_ticks", "version": None, "hidden": False, "weak": False,
                       "forward": "KERNEL32.GetTickCount"}, provider["exports"]["symbols"])
        self.assertIs(provider["versioned"], False)
        from_foo = sorted(x["name"] for x in consumer["imports"]["symbols"] if x["library"] == "foo.dll")
        self.assertEqual(from_foo, ["#2", "foo_bar"])
        self.assertIn({"name": "GetTickCount", "version": None, "library": "KERNEL32.dll", "weak": False},
                      consumer["imports"]["symbols"])
        r = self.run_ok("inspect", "--symbols", to_cli(foo), to_cli(user))
        blocks = parse_inspect_text(self, r.stdout)
        self.assertEqual(blocks[0][1].get("exports"), "2 (1 forwarder)", r.stdout)
        self.assertIn("\n  export    foo_ticks -> KERNEL32.GetTickCount\n", r.stdout)
        self.assertIn("\n  import    #2 (foo.dll)\n", r.stdout)
        self.assertIn("\n  import    foo_bar (foo.dll)\n", r.stdout)


# ==========================================================================
# env and exec
# ==========================================================================


def shell_value(line):
    """The value of an `export NAME='...'` line, unquoted as sh would."""
    import shlex
    m = re.match(r"export (\w+)=(.*)$", line)
    assert m, line
    return m.group(1), shlex.split(m.group(2))[0]


class MessageAnswers(CliTestCase):
    """Issue 41, item 2: the doctor answers an error message with what it
    says (the file as written, the symbol and its version node, the versions
    either side) and what this machine has (the file the loader would take,
    a copy that would do), each fact with its source; its fix followed as
    printed makes the program load."""

    def doctor_json(self, message, *args, env=None):
        full = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
        full.update(env or {})
        proc = subprocess.run(CLI + ["doctor", "--format", "json", "--error", message] + list(args),
                              env=full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        r = Result(["doctor", "--error", message] + list(args), proc)
        self.assertIn(r.rc, (0, 6), r.describe())
        return self.parse_json(r)

    def only(self, doc, kind):
        found = [p for p in doc["problems"] if p["kind"] == kind]
        self.assertEqual(len(found), 1, [(p["kind"], p["problem"]) for p in doc["problems"]])
        return found[0]

    def test_a_path_is_that_file_not_a_lookup(self):
        """glibc compares a name with a slash against that file only: the
        answer is about the path, never 'its folder is not searched'."""
        if CLI_IS_WINDOWS:
            self.skipTest("a Linux path")
        missing = str(self.tmpdir() / "opt app (x86)" / "lib" / "libcudnn.so.8")
        cudnn = self.fixture("cudnn8_compat")
        doc = self.doctor_json("%s: cannot open shared object file: No such file or directory" % missing,
                               "--no-defaults", "--root", to_cli(cudnn))
        p = self.only(doc, "path-missing")
        self.assertEqual(p["facts"]["path"], {"value": missing, "from": "message"})
        self.assertEqual(p["facts"]["reason"]["value"], "absent")
        # The copy here that would do comes from the machine.
        self.assertEqual(p["facts"]["better"]["from"], "machine")
        self.assertTrue(p["facts"]["better"]["value"].endswith("libcudnn.so.8"), p)
        self.assertFalse([q for q in doc["problems"] if "does not search its folder" in q["problem"]])
        self.assertFalse([s for s in p["fix"] if s["action"] == "run-program"],
                         "exec cannot make a path appear: %r" % p)

    def test_a_missing_path_is_fixed_by_the_copys_whole_folder(self):
        """A link to the one file would be searched for its companions
        beside the link ($ORIGIN is the folder of the path opened): where
        the folder the message names is not there, the fix links the whole
        folder of the copy that would do, and the companions come with it;
        where it is, the fix says so in words (issue 41, item 7: followed
        as printed with real cuDNN 9 in acceptance step 15)."""
        if CLI_IS_WINDOWS:
            self.skipTest("a Linux path")
        cudnn = self.fixture("cudnn8_compat")
        app = self.tmpdir() / "opt app"
        missing = app / "lib" / "libcudnn.so.8"
        doc = self.doctor_json("%s: cannot open shared object file: No such file or directory" % missing,
                               "--no-defaults", "--root", to_cli(cudnn))
        p = self.only(doc, "path-missing")
        commands = [s["argv"] for s in p["fix"] if s["action"] == "command"]
        self.assertEqual(commands, [["mkdir", "-p", str(app)],
                                    ["ln", "-s", str(cudnn), str(app / "lib")]], p["fix"])
        for argv in commands:
            subprocess.run(argv, check=True, timeout=TIMEOUT_S)
        self.assertTrue(missing.exists(), "the path is still not there after the fix")
        # The companion the main library opens by name, beside the path.
        self.assertTrue((app / "lib" / "libcudnn_ops_infer.so.8").exists())
        # Its folder there, the file not: no command, the reason in words.
        other = self.tmpdir() / "other" / "libcudnn.so.8"
        other.parent.mkdir()
        doc = self.doctor_json("%s: cannot open shared object file: No such file or directory" % other,
                               "--no-defaults", "--root", to_cli(cudnn))
        p = self.only(doc, "path-missing")
        self.assertEqual([s["action"] for s in p["fix"]], ["note"], p["fix"])
        self.assertIn("a link to one file is not enough", p["fix_text"])

    def test_a_path_here_whose_dependency_is_missing_names_the_dependency(self):
        """The file the message names is here: what it needs and the loader
        would not find is the answer (Windows' error 126 and frameworks that
        say only 'cannot be loaded')."""
        if CLI_IS_WINDOWS:
            self.skipTest("a Linux path")
        cudnn = self.fixture("cudnn8_compat")
        ops = cudnn / "libcudnn_ops_infer.so.8"
        folder = self.tmpdir()
        shutil.copy(str(ops), str(folder / ops.name))
        path = str(folder / ops.name)
        doc = self.doctor_json("OSError: %s: cannot open shared object file: No such file or directory" % path,
                               "--no-defaults")
        needs = [p for p in doc["problems"] if p["kind"] in ("not-found", "lazy-not-found")
                 and p["facts"].get("consumer", {}).get("value") == path]
        self.assertTrue(needs, [(p["kind"], p["problem"]) for p in doc["problems"]])
        self.assertEqual(needs[0]["facts"]["consumer"]["from"], "machine")
        # cuDNN 8's ops_infer opens cuBLAS 12 by name, which nothing here has.
        self.assertIn("libcublas", needs[0]["facts"]["name"]["value"])
        self.assertEqual(needs[0]["facts"]["name"]["from"], "machine")
        self.assertFalse([q for q in doc["problems"] if q["kind"] == "path-missing"], doc["problems"])

    def test_a_stale_copy_is_named_with_the_release_that_has_the_symbol(self):
        """The loader's own words: the symbol and version node from the
        message, the file this machine's loader takes and how (the old
        nvJitLink first on LD_LIBRARY_PATH), the copy here that has it, and
        the fix; followed as printed, the consumer binds every symbol."""
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux tree")
        self.skip_under_qemu("the fix runs the tool as exec's child, which qemu-user does not start as the target's")
        tree = self.fixture("stale_minor")
        old = tree / "cuda-12.1" / "targets" / "x86_64-linux" / "lib"
        cusparse = tree / "site-packages" / "nvidia" / "cusparse" / "lib" / "libcusparse.so.12"
        args = ["--no-defaults", "--root", str(tree / "site-packages")]
        message = ("ImportError: libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, "
                   "version libnvJitLink.so.12")
        doc = self.doctor_json(message, *args, env={"LD_LIBRARY_PATH": str(old)})
        p = self.only(doc, "symbols-missing")
        facts = {k: (v["value"], v["from"]) for k, v in p["facts"].items()}
        self.assertEqual(facts["symbol"], ("__nvJitLinkComplete_12_4", "message"))
        self.assertEqual(facts["version_node"], ("libnvJitLink.so.12", "message"))
        self.assertEqual(facts["wanted"], ("12.4", "message"))
        self.assertEqual(facts["consumer"], ("libcusparse.so.12", "message"))
        self.assertEqual(facts["taken"], (str(old / "libnvJitLink.so.12"), "machine"))
        self.assertEqual(facts["rule"], ("ld-library-path", "machine"))
        self.assertEqual(facts["version"][1], "machine")
        self.assertIn("site-packages/nvidia/nvjitlink/lib/libnvJitLink.so.12", facts["better"][0])
        actions = [s["action"] for s in p["fix"]]
        self.assertEqual(actions[0], "set-variable", p["fix"])
        self.assertEqual(p["fix"][0]["argv"], ["unset", "LD_LIBRARY_PATH"])
        # Followed as printed: the run-program step, explain of the consumer
        # as the program: no undefined symbol any more.
        printed = run_program_words(self, p)
        proc = subprocess.run(CLI + printed + ["--", to_cli(CLI[-1]), "explain", "--format", "json",
                                               "--no-defaults", str(cusparse)],
                              env=dict(os.environ, LD_LIBRARY_PATH=str(old)), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S, text=True)
        after = json.loads(proc.stdout)
        self.assertFalse([f for f in after["findings"] if f["kind"] == "undefined-symbols"],
                         after["findings"])

    def test_error_127_names_the_copy_loaded_first_that_lacks_the_functions(self):
        """[WinError 127] loading a DLL whose own folder has every function
        it imports (the loader's search gives it nothing wrong): the copy
        of an imported DLL elsewhere here that lacks some of them is the
        one a process loaded first. The answer names that copy, its
        version, how many functions it lacks and one of them, and the copy
        beside the DLL that has them (the real case: nvidia-cudnn-cu12
        8.9.4.25's cudnn_cnn_infer64_8.dll lacks 7 of the 228 functions
        8.9.7.29's cudnn_cnn_train64_8.dll imports from it)."""
        if not CLI_IS_WINDOWS:
            self.skipTest("Windows error 127 is a Windows loader's: the Wine tier runs it")
        tree = self.fixture("loaded_first", "windows")
        train = tree / "app" / "lib" / "cudnn_cnn_train64_8.dll"
        older = tree / "site-packages" / "nvidia" / "cudnn" / "bin" / "cudnn_cnn_infer64_8.dll"
        message = ('OSError: [WinError 127] The specified procedure could not be found. '
                   'Error loading "%s" or one of its dependencies.' % to_cli(train))
        doc = self.doctor_json(message, "--no-defaults", "--root", to_cli(tree / "site-packages"))
        p = self.only(doc, "symbols-missing")
        facts = {k: (v["value"], v["from"]) for k, v in p["facts"].items()}
        self.assertEqual(facts["reason"], ("loaded-first", "machine"), facts)
        self.assertEqual(facts["consumer"], (to_cli(train), "message"), facts)
        self.assertEqual(facts["name"], ("cudnn_cnn_infer64_8.dll", "machine"), facts)
        self.assertEqual(facts["taken"][0].lower(), to_cli(older).lower(), facts)
        self.assertEqual(facts["version"], ("8.9.4.25", "machine"), facts)
        self.assertEqual(facts["symbol"], ("cudnnLayerNormWorkspaceSize", "machine"), facts)
        self.assertEqual((facts["count"][0], facts["total"][0]), ("1", "1"), facts)
        self.assertEqual(facts["better"][0].lower(),
                         to_cli(train.parent / "cudnn_cnn_infer64_8.dll").lower(), facts)
        self.assertIn("Windows error 127", p["problem"])

    def test_a_version_the_message_states_decides(self):
        """JAX's words: built with cuDNN 8.6.0, loaded 8.5.0. A copy here
        that is new enough is loaded first; the CUDA major comes from the
        roots given, never the toolkit. On Windows the site-packages with
        NVIDIA's cuDNN 8.9.7 wheel is windows_python's (windows/ holds
        cuDNN 9 only, where no copy is new enough)."""
        wheels = self.fixture(*(("windows_python", "py312", "Lib", "site-packages") if CLI_IS_WINDOWS
                                else ("wheels-cu12", "site-packages")))
        doc = self.doctor_json("Loaded runtime CuDNN library: 8.5.0 but source was compiled with: 8.6.0.  "
                               "CuDNN library needs to have matching major version and equal or higher "
                               "minor version.", "--no-defaults", "--root", to_cli(wheels))
        p = self.only(doc, "older-release")
        self.assertEqual(p["facts"]["wanted"], {"value": "8.6.0", "from": "message"})
        self.assertEqual(p["facts"]["version"], {"value": "8.5.0", "from": "message"})
        self.assertEqual(p["facts"]["better"]["from"], "machine")
        # The better copy is the one the plan loads for the message's cudnn=8.
        planned = [r["path"] for r in doc["requirements"] if r["spec"] == "cudnn=8"]
        self.assertEqual(planned, [p["facts"]["better"]["value"]], doc["requirements"])
        self.assertEqual(doc["cuda_major"]["major"], 12, doc["cuda_major"])
        self.assertEqual([s["action"] for s in p["fix"]][-1], "run-program")

    def test_the_message_s_cuda_major_picks_the_build(self):
        """onnxruntime's words: 'Require cuDNN 9.* and CUDA 12.*'. The plan
        takes CUDA 12's cuDNN 9 (never the CUDA 13 toolkit's), and the fix
        installs the CUDA 12 build; the cuda_major fact says the message said
        it."""
        wheels13 = self.fixture("wheels-cu13", "site-packages")
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux wheel trees")
        text = ("Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot "
                "open shared object file: No such file or directory\n"
                "Require cuDNN 9.* and CUDA 12.*, and the latest MSVC runtime.")
        doc = self.doctor_json(text, "--no-defaults", "--root", to_cli(wheels13))
        p = self.only(doc, "unsatisfied")
        self.assertEqual(p["facts"]["requirement"], {"value": "cudnn=9", "from": "message"})
        self.assertEqual(p["facts"]["cuda_major"], {"value": "12", "from": "message"})
        install = [s for s in p["fix"] if s["action"] == "install"]
        self.assertTrue(install and any(w.startswith("nvidia-cudnn-cu12") for w in install[0]["argv"]), p)
        self.assertTrue(doc["cuda_major"]["reason"].startswith("the error message says CUDA 12"), doc["cuda_major"])
        # A library the message names that is here after all (the loader
        # does not search its folder): the copy chosen for the CUDA major
        # the message states, which the record says (acceptance: ort-major).
        wheels12 = self.fixture("wheels-cu12", "site-packages")
        text = ("Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.12: "
                "cannot open shared object file: No such file or directory\n"
                "Require cuDNN 9.* and CUDA 12.*, and the latest MSVC runtime.")
        doc = self.doctor_json(text, "--no-defaults", "--root", to_cli(wheels12))
        p = self.only(doc, "not-found")
        self.assertEqual(p["facts"]["cuda_major"], {"value": "12", "from": "message"}, p)


class Program(CliTestCase):
    """--for TARGET (doctor, env, exec) and exec's COMMAND as the program:
    requirements read from what the user has (the "programs" fixture tree),
    each saying where it came from."""

    def setUp(self):
        if CLI_IS_WINDOWS:
            self.skipTest("the programs tree is a Linux tree: the Windows Python tier "
                          "runs the real Windows programs")
        self.tree = self.fixture("programs")

    def ct2_cuda11(self, nvrtc_linked):
        """A copy of the ct2-cuda11 tree, with libnvrtc.so linked beside
        cuBLASLt 11 to the CUDA 11 NVRTC (what its fix does) or not."""
        tree = self.tmpdir() / "ct2-cuda11"
        shutil.copytree(str(self.fixture("ct2-cuda11")), str(tree), symlinks=True)
        if nvrtc_linked:
            os.symlink("../../cuda_nvrtc/lib/libnvrtc.so.11.2",
                       str(tree / "site-packages" / "nvidia" / "cublas" / "lib" / "libnvrtc.so"))
        return tree

    def doctor_ct2_cuda11(self, tree, **env):
        full = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
        full.update(env)
        proc = subprocess.run(CLI + ["doctor", "--no-defaults", "--environment",
                                     to_cli(tree / "site-packages"), "--for", "ctranslate2",
                                     "--format", "json"],
                              env=full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        return self.parse_json(Result(["doctor", "--for", "ctranslate2"], proc))

    def test_a_cudnn_front_older_than_its_parts_is_not_two_versions(self):
        """ctranslate2 3.24.0 (CUDA 11) bundles cuDNN 8.1.1's front
        (libcudnn-<hex>.so.8.1.1) and opens cuDNN 8's parts by name; its
        fix installs nvidia-cudnn-cu11 8.9.6.50, the only cuDNN 8 for CUDA
        11 the index has. The front finds their functions by name and runs
        with them (cuDNN's own version checks through the real front
        answer 8906 and success): no two-versions problem, whose only fix
        would be a cuDNN 8.1 no wheel ships. What is left is true: without
        cudaload the loader finds neither libcublas.so.11 nor the parts."""
        doc = self.doctor_ct2_cuda11(self.ct2_cuda11(nvrtc_linked=True))
        self.assertEqual(doc["cuda_major"]["major"] if isinstance(doc["cuda_major"], dict)
                         else doc["cuda_major"], 11, doc["cuda_major"])
        self.assertEqual(sorted(q["spec"] for q in doc["requirements"] if q["satisfied"]),
                         ["cublas=11", "cudnn=8"], doc["requirements"])
        kinds = sorted(p["kind"] for p in doc["problems"])
        self.assertNotIn("two-versions", kinds, doc["problems"])
        self.assertEqual(kinds, ["driver-absent", "lazy-not-found", "lazy-not-found"],
                         doc["problems"])

    def test_a_name_opened_as_written_of_another_cuda_major_is_linked_to_the_programs(self):
        """cuBLASLt 11 opens "libnvrtc.so" as written (the real 11.11.3.6,
        LD_DEBUG), which only a toolkit's development link has: with a CUDA
        13 toolkit's folder on LD_LIBRARY_PATH (or in ld.so.cache) the CUDA
        11 process gets NVRTC 13. The doctor says so (cuda-majors, the
        name, both files) and its fix, followed as printed, drops that
        folder and links the name beside cuBLASLt to the CUDA 11 NVRTC the
        environment has, which its own search ($ORIGIN) then finds first."""
        tree = self.ct2_cuda11(nvrtc_linked=False)
        toolkit = tree / "toolkit13" / "lib"
        blas = tree / "site-packages" / "nvidia" / "cublas" / "lib"
        nvrtc11 = tree / "site-packages" / "nvidia" / "cuda_nvrtc" / "lib" / "libnvrtc.so.11.2"
        doc = self.doctor_ct2_cuda11(tree, LD_LIBRARY_PATH=str(toolkit))
        found = [p for p in doc["problems"] if p["kind"] == "cuda-majors"]
        self.assertEqual(len(found), 1, doc["problems"])
        facts = {k: v["value"] for k, v in found[0]["facts"].items()}
        self.assertEqual((facts["name"], facts["cuda_major"], facts["other_cuda_major"]),
                         ("libnvrtc.so", "11", "13"), facts)
        self.assertEqual(facts["path"], str(blas / "libcublasLt.so.11"), facts)
        self.assertEqual(facts["other_path"], str(toolkit / "libnvrtc.so"), facts)
        steps = [s for s in found[0]["fix"] if s["action"] != "note"]
        self.assertEqual([s.get("argv") for s in steps],
                         [["unset", "LD_LIBRARY_PATH"],
                          ["ln", "-s", str(nvrtc11), str(blas / "libnvrtc.so")]], steps)
        # Followed as printed: the variable unset, the link made.
        subprocess.run(steps[1]["argv"], check=True)
        doc = self.doctor_ct2_cuda11(tree)
        self.assertEqual([p for p in doc["problems"] if p["kind"] == "cuda-majors"], [],
                         doc["problems"])

    def test_a_name_opened_as_written_that_is_nowhere_is_no_problem(self):
        """Not finding "libnvrtc.so" is no problem: cuBLASLt 11 goes on
        without NVRTC, as it does from NVIDIA's CUDA 11 wheels, which hold
        no such name. Only where no ld.so.cache entry gives the name: this
        machine's toolkit may be in it."""
        if not CLI_IS_WINDOWS and subprocess.run(
                ["sh", "-c", "ldconfig -p 2>/dev/null | grep -q 'libnvrtc.so '"]).returncode == 0:
            self.skipTest("this machine's ld.so.cache gives libnvrtc.so (a toolkit's "
                          "development link): the name is found, not missing")
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux tree")
        doc = self.doctor_ct2_cuda11(self.ct2_cuda11(nvrtc_linked=False))
        self.assertEqual([p for p in doc["problems"] if "libnvrtc.so" in json.dumps(p)], [],
                         doc["problems"])

    def test_doctor_for_a_module_says_where_each_requirement_came_from(self):
        args = ["--no-defaults", "--environment", to_cli(self.tree / "site-packages"),
                "--root", to_cli(self.tree / "wheels" / "site-packages"), "--for", "ortlike"]
        doc = self.parse_json(run_cli("doctor", *(args + ["--format", "json"])))
        got = {q["spec"]: q for q in doc["requirements"]}
        self.assertEqual(sorted(got), ["cublas=12", "cudart=12", "cudnn=9", "cufft=11",
                                       "curand=10", "nvrtc=12"], doc["requirements"])
        for spec, q in got.items():
            self.assertTrue(q["satisfied"], q)
            if spec != "nvrtc=12":  # no file needs it: the [cuda] extra pins it
                self.assertIn("libortlike_providers_cuda.so (ELF NEEDED)", q["from"], q)
        self.assertIn("Requires-Dist: nvidia-cudnn-cu12 ~=9.0 of ortlike-gpu 1.0",
                      got["cudnn=9"]["from"])
        text = run_cli("doctor", "--verbose", *args).stdout
        self.assertIn("from needed by %s" % (self.tree / "site-packages" / "ortlike" / "capi" /
                                             "libortlike_providers_cuda.so"), text)

    def test_doctor_notes_what_stops_nothing_loading(self):
        # The TensorRT-like provider cannot load (its libnvinfer.so.10 is
        # nowhere), but the program runs without it; NVRTC's RUNPATH
        # "$ORIGIN:" also searches the current folder. Both are notes, not
        # problems with a fix nobody can follow.
        args = ["--no-defaults", "--environment", to_cli(self.tree / "site-packages"),
                "--root", to_cli(self.tree / "wheels" / "site-packages"), "--for", "ortlike"]
        doc = self.parse_json(run_cli("doctor", *(args + ["--format", "json"])))
        problems = " ".join(q["problem"] + " " + q["fix_text"] for q in doc["problems"])
        self.assertNotIn("libnvinfer.so.10", problems)
        self.assertNotIn("libortlike_providers_tensorrt.so", problems)
        self.assertNotIn("current folder", problems)
        plugin = [n for n in doc["notes"] if "libortlike_providers_tensorrt.so is a plugin" in n["note"]]
        self.assertEqual(len(plugin), 1, doc["notes"])
        self.assertIn("needs libnvinfer.so.10", plugin[0]["note"])
        self.assertIn("install what provides libnvinfer.so.10", plugin[0]["fix_text"])
        empty = [n for n in doc["notes"] if "libnvrtc.so.12" in n["note"]
                 and "holds an empty entry" in n["note"]]
        self.assertEqual(len(empty), 1, doc["notes"])
        text = run_cli("doctor", *args).stdout
        self.assertIn("\nNotes (nothing here stops a library loading)\n", text)
        # Asked about the plugin itself, it is the problem.
        plugin_file = self.tree / "site-packages" / "ortlike" / "capi" / "libortlike_providers_tensorrt.so"
        doc = self.parse_json(run_cli("doctor", "--no-defaults", "--root",
                                      to_cli(self.tree / "wheels" / "site-packages"), "--for",
                                      to_cli(plugin_file), "--format", "json"))
        self.assertTrue([q for q in doc["problems"] if "libnvinfer.so.10" in q["problem"]],
                        doc["problems"])

    def test_doctor_without_for_judges_the_active_environments_programs(self):
        # Only --require, as the user in onnxruntime's issue types it: the
        # environment's program (the provider, which has no RUNPATH) still
        # fails as it is, and running it through cudaload is the fix.
        args = ["--no-defaults", "--environment", to_cli(self.tree / "site-packages"),
                "--root", to_cli(self.tree / "wheels" / "site-packages"),
                "--require", "cublas=12,cudart=12"]
        doc = self.parse_json(run_cli("doctor", *(args + ["--format", "json"])))
        provider = str(self.tree / "site-packages" / "ortlike" / "capi" / "libortlike_providers_cuda.so")
        as_is = [q for q in doc["problems"] if q["problem"].startswith("without cudaload")
                 and provider in q["problem"]]
        self.assertEqual(len(as_is), 1, doc["problems"])
        # Among what it needs: the names of the required family (on a
        # machine without a toolkit, also the others it lacks).
        self.assertRegex(as_is[0]["problem"], r"needs (\S+, )*libcublasLt\.so\.12, libcublas\.so\.12")
        self.assertEqual(as_is[0]["kind"], "not-found", as_is[0])
        self.assertIn("libcublasLt.so.12", as_is[0]["facts"]["name"]["value"], as_is[0])
        self.assertEqual(as_is[0]["facts"]["condition"]["value"], "as-it-is", as_is[0])
        self.assertIn("cudaload exec --no-defaults", as_is[0]["fix_text"])
        self.assertIn("--require cublas=12,cudart=12 -- PROGRAM", as_is[0]["fix_text"])

    def test_doctor_for_does_not_read_the_programs_files_again(self):
        # Issue 44, item 1: --for reads the program's files; the doctor's
        # scan, plan and loader model then ask them again. The file cache
        # lives across the scan that the program's roots start, and the
        # verdict asks it too: the provider's headers are parsed once, its
        # first page read once more only when binding opens it again for
        # its definitions (before: three times, the scan dropping what
        # --for had read). Counted with strace, the names store off so that
        # no earlier run's answers count; never timed.
        args = ["doctor", "--no-defaults", "--environment", to_cli(self.tree / "site-packages"),
                "--root", to_cli(self.tree / "wheels" / "site-packages"), "--for", "ortlike",
                "--format", "json"]
        lines = self.traced(args, "openat,pread64", rcs=(0, 6),
                            env=dict(os.environ, CUDALOAD_CACHE_DISABLE="1"))
        fds, heads = {}, {}
        for line in lines:
            m = re.match(r'(\d+)\s+openat\(.*?"([^"]+)".*\)\s+=\s+(\d+)', line)
            if m:
                fds[(m.group(1), m.group(3))] = m.group(2)
                continue
            m = re.match(r'(\d+)\s+pread64\((\d+),.*, 4096, 0\)\s+=', line)
            if m:
                path = fds.get((m.group(1), m.group(2)), "")
                heads[path] = heads.get(path, 0) + 1
        provider = [n for p, n in heads.items() if p.endswith("libortlike_providers_cuda.so")]
        self.assertEqual(len(provider), 1, heads)
        self.assertLessEqual(provider[0], 2, heads)

    def test_the_doctor_opens_each_file_once(self):
        # Issue 44, item 2: the doctor opens each file, ld.so.cache and the
        # environment once. Before, the plan's release closed what the scan
        # had opened and the judgement opened it again, the plan read each
        # library's machine outside the file cache, the driver search read
        # ld.so.cache and /proc/driver/nvidia/version for the plan and again
        # for the doctor, and each loader model read /etc/ld.so.preload and
        # /proc/self/exe (each file 2 to 4 times). The library opens files
        # to read them with O_NONBLOCK (cl_os_file_open: never blocks on a
        # FIFO); ld.so's own opens at the tool's start have none. Counted
        # with strace, the names store off; never timed.
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux wheel tree: checked against a Linux build")
        site = self.fixture("wheels-cu13", "site-packages")
        args = ["doctor", "--no-defaults", "--environment", to_cli(site),
                "--require", "cudnn=9,cublas=13"]
        lines = self.traced(args, "openat,open", rcs=(0, 6),
                            env=dict(os.environ, CUDALOAD_CACHE_DISABLE="1"))
        opens = {}
        for line in lines:
            m = re.match(r'\d+\s+open(?:at)?\((?:AT_FDCWD, )?"([^"]+)", ([A-Z_|]+)', line)
            if m and "O_NONBLOCK" in m.group(2) and "O_PATH" not in m.group(2) \
                    and "O_DIRECTORY" not in m.group(2):
                opens[m.group(1)] = opens.get(m.group(1), 0) + 1
        libraries = [p for p in opens if p.startswith(str(site)) or "/site-packages/" in p]
        self.assertGreaterEqual(len(libraries), 3, opens)  # cuDNN, cuBLAS, cuBLASLt at least
        again = {p: n for p, n in opens.items() if n > 1}
        self.assertEqual(again, {}, "opened more than once: %r" % again)

    def test_a_programs_record_is_read_once(self):
        # Issue 44, item 1: --for reads a distribution's RECORD once. Before,
        # finding the module's distribution read it (a chunk at a time, up
        # to the module's row), the program's scan read it whole again, and
        # for an environment the search for distributions installed over
        # each other a third time. Counted with strace, the names store off.
        site = self.tree / "site-packages"
        for target in ("ortlike", to_cli(site)):
            args = ["doctor", "--no-defaults", "--environment", to_cli(site), "--for", target,
                    "--format", "json"]
            lines = self.traced(args, "openat,open", rcs=(0, 6),
                                env=dict(os.environ, CUDALOAD_CACHE_DISABLE="1"))
            opens = {}
            for line in lines:
                m = re.match(r'\d+\s+open(?:at)?\((?:AT_FDCWD, )?"([^"]+/RECORD)", ', line)
                if m and not line.rstrip().endswith(("ENOENT (No such file or directory)",
                                                     "ENOTDIR (Not a directory)")):
                    opens[m.group(1)] = opens.get(m.group(1), 0) + 1
            self.assertTrue(any("ortlike" in p for p in opens), (target, opens))
            again = {p: n for p, n in opens.items() if n > 1}
            self.assertEqual(again, {}, "%s: RECORD opened more than once: %r" % (target, again))

    def test_the_short_answer_leads_with_what_the_caller_asked_about(self):
        # Issue 46: every acceptance failure shows its cause and fix on the
        # first screen. The missing driver (a fact of the machine, first in
        # the records) is shown last, so the program's own problems lead;
        # the first line names what is not found; a path reached through a
        # search list ($ORIGIN/..) is written as the file a user looks for.
        site = self.tree / "selfload" / "site-packages"
        args = ["--no-defaults", "--environment", to_cli(site), "--for", "tensorflow"]
        doc = self.parse_json(run_cli("doctor", *(args + ["--format", "json"])))
        kinds = [q["kind"] for q in doc["problems"]]
        text = run_cli("doctor", *args).stdout
        numbered = [l for l in text.split("\n") if re.match(r"^  \d+\. ", l)]
        self.assertEqual(len(numbered), len(kinds), text)
        if "driver-absent" in kinds:  # a machine with a driver has none
            self.assertLess(kinds.index("driver-absent"), len(kinds) - 1, kinds)
            self.assertTrue(numbered[-1].startswith("  %d. no NVIDIA driver" % len(kinds)), text)
        self.assertNotIn("no NVIDIA driver", numbered[0])
        consumer = [q["facts"]["consumer"]["value"] for q in doc["problems"]
                    if q["kind"] == "lazy-not-found" and "libnvrtc" in q["facts"]["name"]["value"]]
        self.assertEqual(len(consumer), 1, doc["problems"])
        self.assertIn("/tensorflow/../nvidia/", consumer[0])
        self.assertIn("<python>/nvidia/cublas/lib/libcublasLt.so.12 opens libnvrtc.so.12", text)
        self.assertNotIn("/../", text)
        verbose = run_cli("doctor", "--verbose", *args).stdout
        self.assertIn(consumer[0], verbose)
        # The first line names the first problem shown by what is missing.
        first = run_cli("doctor", "--no-defaults", "--root", to_cli(self.fixture("cudnn8_compat")),
                        "--require", "cudnn=8").stdout.split("\n")[0]
        self.assertRegex(first, r"; \d problems: libcublas\.so\.12 and 1 more not found$")

    def test_what_a_consumer_opens_for_a_feature_is_planned_if_used(self):
        # Issue 41: ctranslate2 4.x holds libnccl.so.2 and opens it by name
        # only in its tensor-parallel mode. Before, the model did not know
        # it: exec --for ctranslate2 left that open to whatever ld.so.cache
        # held (the CUDA 13 toolkit's NCCL on a CUDA 12 program). Now it is
        # a need "if used", of the program's CUDA major (12, from its
        # cuBLAS): a note with the CUDA 12 wheel to install, never a
        # problem, never the CUDA 13 NCCL the site holds; given a root that
        # holds a CUDA 12 one, planned from there.
        tree = self.fixture("consumers")
        args = ["--no-defaults", "--environment", to_cli(tree / "site-packages"),
                "--root", to_cli(tree / "cublas12"), "--for", "ctranslate2"]
        doc = self.parse_json(run_cli("doctor", *(args + ["--format", "json"])))
        self.assertEqual([q for q in doc["problems"] if "nccl" in json.dumps(q)], [],
                         doc["problems"])
        self.assertEqual(doc["cuda_major"]["major"] if isinstance(doc["cuda_major"], dict)
                         else doc["cuda_major"], 12, doc["cuda_major"])
        notes = [n for n in doc["notes"] if n["kind"] == "if-used"
                 and "libnccl.so.2" in n["note"]]
        self.assertEqual(len(notes), 1, doc["notes"])
        self.assertIn("tensor-parallel mode", notes[0]["note"])
        self.assertIn("nvidia-nccl-cu12", notes[0]["fix_text"])
        self.assertNotIn("nvidia-nccl-cu13", notes[0]["fix_text"])
        planned = [e for e in doc["plan"] if e["name"] == "nccl"]
        self.assertEqual(planned, [], planned)
        doc = self.parse_json(run_cli("doctor", *(args + ["--root", to_cli(tree / "nccl12"),
                                                          "--format", "json"])))
        self.assertEqual([n for n in doc["notes"] if "libnccl.so.2" in n["note"]], [], doc["notes"])
        planned = [e for e in doc["plan"] if e["name"] == "nccl"]
        self.assertEqual([Path(e["path"]).parent.parent.parent.parent.name for e in planned],
                         ["nccl12"], planned)
        # Explaining the library lists no NCCL problem: a use of a feature
        # is not a load its use makes.
        lib = tree / "site-packages" / "ctranslate2.libs" / "libctranslate2-0a1b2c3d.so.4.4.0"
        r = run_cli("explain", "--format", "json", "--no-defaults", "--root",
                    to_cli(tree / "cublas12"), to_cli(lib))
        self.assertFalse([p for p in self.parse_json(r)["problems"] if "libnccl" in p], r.stdout)

    def test_a_program_that_loads_its_own_libraries_is_judged_as_it_runs(self):
        # Issue 41, item 4: JAX's CUDA plugin loads the NVIDIA wheels'
        # libraries by path first (consumers.c), so cuBLASLt's by-name
        # libnvrtc.so.12 finds NVRTC loaded: no problem (before: a false
        # lazy-not-found), and exec warns of nothing.
        site = self.tree / "selfload" / "site-packages"
        args = ["--no-defaults", "--environment", to_cli(site), "--for", "jax"]
        doc = self.parse_json(run_cli("doctor", *(args + ["--format", "json"])))
        self.assertEqual([q for q in doc["problems"] if q["kind"] != "driver-absent"], [],
                         doc["problems"])
        r = run_cli("exec", *(args + ["--", sys.executable, "-c", "print('ran')"]))
        self.assertEqual(r.rc, 0, r.stderr)
        # But what it changes for the program: this machine's CUDA_HOME of
        # another CUDA major, unset (issue 41, item 6).
        self.assertEqual([line for line in r.stderr.splitlines() if "warning" in line and
                          not re.match(r"cudaload: exec: warning: (CUDA_PATH|CUDA_HOME|CUDNN_PATH)="
                                       r".* the started program goes without \1, ", line)], [],
                         r.stderr)
        # Issue 41, item 3: TensorFlow 2.21 opens its GPU libraries by name
        # at start-up from libtensorflow_framework.so.2, whose RUNPATH (its
        # over 4 KB read whole) misses cuSOLVER: the cause, named.
        doc = self.parse_json(run_cli("doctor", "--no-defaults", "--environment", to_cli(site),
                                      "--for", "tensorflow", "--format", "json"))
        framework = str(site / "tensorflow" / "libtensorflow_framework.so.2")
        lazy = [q for q in doc["problems"] if q["kind"] == "lazy-not-found"
                and q["facts"]["consumer"]["value"] == framework]
        self.assertEqual(len(lazy), 1, doc["problems"])
        # (the tree holds no cudart or cuFFT: those are named too)
        self.assertIn("libcusolver.so.11", lazy[0]["facts"]["name"]["value"].split(", "))
        self.assertEqual(lazy[0]["fix"][0]["action"], "run-program")

    def test_for_what_is_no_program_is_exit_3_and_says_where_it_looked(self):
        r = run_cli("env", "--no-defaults", "--environment", to_cli(self.tree / "site-packages"),
                    "--for", "no_such_module")
        self.assertEqual(r.rc, 3, r.describe())
        self.assertIn("no_such_module", r.stderr)
        self.assertIn(str(self.tree / "site-packages"), r.stderr)
        self.assertEqual(r.stdout, "", r.describe())

    def venv_with_interpreter(self):
        """A copy of the fixture venv whose bin/python prints the variable
        it was started with, as the program exec runs."""
        venv = self.tmpdir() / "venv"
        shutil.copytree(str(self.tree / "venv"), str(venv), symlinks=True)
        python = venv / "bin" / "python"
        python.write_text('#!/bin/sh\nprintf "LD_LIBRARY_PATH=%s\\n" "$LD_LIBRARY_PATH"\n')
        python.chmod(0o755)
        return venv, python

    def test_exec_of_a_venv_interpreter_uses_its_venv(self):
        """`cudaload exec -- VENV/bin/python` with nothing activated: the
        interpreter's pyvenv.cfg names its environment, whose program
        (torchlike) says what to require, pin included; the child gets
        the wheels' folders."""
        venv, python = self.venv_with_interpreter()
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
        wheels = self.tree / "wheels" / "site-packages"
        args = ["exec", "--no-defaults", "--root", to_cli(wheels), "--dry-run", "--",
                to_cli(python)]
        proc = subprocess.run(CLI + args, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT_S, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(str(wheels / "nvidia" / "nvjitlink" / "lib"), proc.stdout)
        self.assertIn(str(wheels / "nvidia" / "cusparse" / "lib"), proc.stdout)
        # And it runs, with that variable.
        proc = subprocess.run(CLI + [a for a in args if a != "--dry-run"], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(str(wheels / "nvidia" / "nvjitlink" / "lib"), proc.stdout)

    def test_exec_of_a_venv_interpreter_without_cuda_programs_runs_it(self):
        """A venv with no CUDA program in it (a fresh project, or the test
        suite's own venv) is no error: `cudaload exec --require ... --
        VENV/bin/python` runs it with what was required (it said "no
        program file, interpreter or environment folder", exit 3)."""
        venv = self.tmpdir() / "plain-venv"
        (venv / "bin").mkdir(parents=True)
        (venv / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
        (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
        python = venv / "bin" / "python"
        python.write_text('#!/bin/sh\necho ran\n')
        python.chmod(0o755)
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
        wheels = self.tree / "wheels" / "site-packages"
        proc = subprocess.run(CLI + ["exec", "--no-defaults", "--root", to_cli(wheels),
                                     "--require", "cublas=12", "--", to_cli(python)], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout, "ran\n", proc.stderr)

    def test_exec_of_a_script_without_requirements_is_a_usage_error(self):
        script = self.tmpdir() / "run.sh"
        script.write_text("#!/bin/sh\nexit 0\n")
        script.chmod(0o755)
        r = run_cli("exec", "--no-defaults", "--", str(script))
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("--require SPEC or --for TARGET", r.stderr)


class StaleMinor(CliTestCase):
    """A stale nvJitLink minor first (issue 32, item 1) on the stale_minor
    fixtures (the real symbol shapes): explain, the doctor and exec say it,
    down to the symbol, with a fix that works as printed."""

    def setUp(self):
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux tree; its Windows counterpart is checked by "
                          "fixture_shapes_windows and the Windows tier")
        self.tree = self.fixture("stale_minor")
        self.old = self.tree / "cuda-12.1" / "targets" / "x86_64-linux" / "lib"
        self.cusparse = (self.tree / "site-packages" / "nvidia" / "cusparse" / "lib" /
                         "libcusparse.so.12")

    def run_env(self, args, **env):
        full = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
        full.update(env)
        proc = subprocess.run(CLI + args, env=full, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT_S, text=True)
        return proc

    def test_explain_names_the_missing_symbols(self):
        p = self.run_env(["explain", "--format", "json", "--no-defaults", "--root",
                          str(self.tree / "site-packages"), str(self.cusparse)],
                         LD_LIBRARY_PATH=str(self.old))
        self.assertEqual(p.returncode, 6, p.stderr)
        doc = json.loads(p.stdout)
        found = [f for f in doc["findings"] if f["kind"] == "undefined-symbols"]
        self.assertEqual(len(found), 1, doc["findings"])
        self.assertIn("_12_4", found[0]["problem"])
        self.assertIn("version libnvJitLink.so.12", found[0]["problem"])
        self.assertIn(str(self.old), found[0]["taken"])
        self.assertIn("site-packages/nvidia/nvjitlink", found[0]["better"])
        self.assertIn("drop %s from LD_LIBRARY_PATH" % self.old, found[0]["fix"])

    def test_doctor_says_what_fails_without_cudaload_and_its_fix_works(self):
        self.skip_under_qemu("the fix runs the tool as exec's child, which qemu-user does not start as the target's")
        args = ["--no-defaults", "--root", str(self.tree / "site-packages"),
                "--require", "cusparse=12"]
        p = self.run_env(["doctor", "--format", "json"] + args, LD_LIBRARY_PATH=str(self.old))
        doc = json.loads(p.stdout)
        as_is = [q for q in doc["problems"] if q["problem"].startswith("without cudaload")
                 and "_12_4" in q["problem"]]
        self.assertEqual(len(as_is), 1, doc["problems"])
        printed = run_program_words(self, as_is[0])
        # Followed as printed, the doctor as the program: that problem is gone.
        p = self.run_env(printed + ["--", to_cli(CLI[-1]), "doctor",
                                                     "--format", "json"] + args,
                         LD_LIBRARY_PATH=str(self.old))
        doc = json.loads(p.stdout)
        self.assertFalse([q for q in doc["problems"] if "_12_4" in q["problem"]],
                         doc["problems"])

    def test_a_fix_from_the_message_alone_keeps_program_and_says_why(self):
        """Issue 41, item 6: only an answer from the text alone (--error,
        no --for) leaves the program as PROGRAM, and its note says so."""
        args = ["--no-defaults", "--root", str(self.tree / "site-packages"), "--error",
                "OSError: libcusparse.so.12: cannot open shared object file: No such file or "
                "directory"]
        p = self.run_env(["doctor", "--format", "json"] + args, LD_LIBRARY_PATH=str(self.old))
        doc = json.loads(p.stdout)
        steps = [s for q in doc["problems"] for s in q["fix"] if s["action"] == "run-program"]
        self.assertTrue(steps, doc["problems"])
        for step in steps:
            self.assertEqual(step["argv"][-2:], ["--", "PROGRAM"], step)
            self.assertIn("the message alone does not name it", step["note"])

    def test_exec_stops_on_an_old_copy_ld_preload_keeps(self):
        args = ["exec", "--no-defaults", "--root", str(self.tree / "site-packages"),
                "--require", "cusparse=12", "--", "true"]
        p = self.run_env(args, LD_PRELOAD=str(self.old / "libnvJitLink.so.12"))
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertIn("cudaload: exec: error:", p.stderr)
        self.assertIn("LD_PRELOAD keeps", p.stderr)
        self.assertIn("the command was not run", p.stderr)
        p = self.run_env(args[:1] + ["--force"] + args[1:],
                         LD_PRELOAD=str(self.old / "libnvJitLink.so.12"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("cudaload: exec: warning:", p.stderr)
        # Left out of the program's LD_PRELOAD (issue 41, item 5): it runs
        # without the variable, and the warning names the file.
        if len(CLI) > 1:  # valgrind puts its own preload in the child's LD_PRELOAD
            return
        show = args[:-1] + ["sh", "-c", 'echo "LD_PRELOAD=${LD_PRELOAD-unset}"']
        p = self.run_env(show[:1] + ["--drop-stale-preload"] + show[1:],
                         LD_PRELOAD=str(self.old / "libnvJitLink.so.12"))
        self.assertEqual((p.returncode, p.stdout), (0, "LD_PRELOAD=unset\n"), p.stderr)
        self.assertIn("LD_PRELOAD leaves out %s" % (self.old / "libnvJitLink.so.12"), p.stderr)


# What the torchnccl child of the stale_nccl fixtures prints: the version
# the NCCL its library bound answers, and every libnccl.so.2 mapped.
NCCL_CHILD = ("import torchnccl\n"
              "maps = sorted({l.split()[-1] for l in open('/proc/self/maps')\n"
              "               if l.rstrip().endswith('libnccl.so.2')})\n"
              "print(torchnccl.nccl_version(), *maps)\n")


class StaleNccl(CliTestCase):
    """Issue 41, items 5 and 6, on the stale_nccl fixtures (NCCL's real
    shape: plain names; a consumer that is no CUDA library, reached through
    another file, whose DT_RPATH reaches its wheel's folder): an older
    libnccl.so.2 lacking ncclCommRegister put first by LD_PRELOAD, or left
    in the wheel's folder. Each answer is followed as printed, and a child
    then imports the program: its library loads (RTLD_NOW), binds, and maps
    the planned NCCL only."""

    def setUp(self):
        if CLI_IS_WINDOWS:
            self.skipTest("LD_PRELOAD and DT_RPATH are the Linux loader's (the Windows "
                          "analogue, a DLL already loaded by name: test_preload's "
                          "windows_loaded_copy_lacks_an_import under Wine)")
        self.skip_under_qemu("the fixture venvs run this host's Python")
        self.tree = self.fixture("stale_nccl")
        self.venv = self.tree / "venv"
        self.old_venv = self.tree / "venv-old"
        self.old = self.tree / "nccl-2.18.1" / "nvidia" / "nccl" / "lib" / "libnccl.so.2"
        self.new_root = self.tree / "nccl-2.21.5"
        self.new = self.new_root / "nvidia" / "nccl" / "lib" / "libnccl.so.2"

    def site_nccl(self, venv):
        found = list(venv.glob("lib/python*/site-packages/nvidia/nccl/lib/libnccl.so.2"))
        self.assertEqual(len(found), 1, found)
        return found[0]

    def clean_env(self, **extra):
        """This environment without what would change the answers: the
        loader's variables, an active environment, the CUDA variables."""
        drop = ("LD_PRELOAD", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "CONDA_PREFIX", "CUDA_PATH",
                "CUDA_HOME", "CUDNN_PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env["PYTHONNOUSERSITE"] = "1"
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def run_env(self, argv, env):
        return subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S, universal_newlines=True)

    def doctor(self, args, env):
        p = self.run_env(CLI + ["doctor", "--format", "json"] + args, env)
        self.assertIn(p.returncode, (0, 6), p.stderr)
        return json.loads(p.stdout)["problems"]

    def assert_loads(self, p, nccl):
        """The child ran: its library bound ncclCommRegister (nccl_version
        is -1 otherwise) to the planned NCCL 2.21.5, the only one mapped."""
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        words = p.stdout.split()
        self.assertEqual(words[:1], ["22105"], p.stdout + p.stderr)
        self.assertEqual([os.path.realpath(w) for w in words[1:]], [os.path.realpath(str(nccl))],
                         p.stdout)

    def nccl_problems(self, problems):
        return [q for q in problems if q["facts"].get("name", {}).get("value") == "libnccl.so.2"]

    def test_the_failures_without_cudaload(self):
        """What the user meets (the fixture keeps the real files' shape)."""
        python = str(self.venv / "bin" / "python3")
        p = self.run_env([python, "-c", NCCL_CHILD], self.clean_env())
        self.assert_loads(p, self.site_nccl(self.venv))
        p = self.run_env([python, "-c", NCCL_CHILD], self.clean_env(LD_PRELOAD=self.old))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("libtorchnccl_cuda.so: undefined symbol: ncclCommRegister", p.stderr)
        p = self.run_env([str(self.old_venv / "bin" / "python3"), "-c", NCCL_CHILD],
                         self.clean_env())
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("libtorchnccl_cuda.so: undefined symbol: ncclCommRegister", p.stderr)

    def test_doctor_names_the_copy_ld_preload_puts_first_and_its_fix_works(self):
        """--for and --require alike: a preloaded-copy problem whose facts
        name the consumer, the copy taken and the one that would do; its
        set-variable step, followed, leaves the program loading."""
        for what in (["--for", "torchnccl"], ["--require", "nccl=2"]):
            args = ["--no-defaults", "--environment", str(self.venv)] + what
            env = self.clean_env(LD_PRELOAD=self.old)
            found = self.nccl_problems(self.doctor(args, env))
            self.assertEqual([q["kind"] for q in found], ["preloaded-copy"], found)
            facts = {k: v["value"] for k, v in found[0]["facts"].items()}
            self.assertTrue(same_file(facts["taken"], self.old), facts)
            self.assertTrue(facts["consumer"].endswith("/torchnccl/lib/libtorchnccl_cuda.so"), facts)
            self.assertTrue(same_file(facts["better"], self.site_nccl(self.venv)), facts)
            self.assertEqual(facts["rule"], "already-loaded", facts)
            self.assertIn("ncclCommRegister", found[0]["problem"])
            steps = [s for s in found[0]["fix"] if s["action"] == "set-variable"]
            self.assertEqual(len(steps), 1, found[0])
            self.assertEqual(steps[0]["argv"], ["unset", "LD_PRELOAD"], steps)
            del env["LD_PRELOAD"]
            self.assertFalse(self.nccl_problems(self.doctor(args, env)))
            self.assert_loads(self.run_env([str(self.venv / "bin" / "python3"), "-c", NCCL_CHILD],
                                           env), self.site_nccl(self.venv))

    def test_exec_refuses_a_stale_preload_or_leaves_it_out(self):
        command = ["exec", "--no-defaults", "--environment", str(self.venv), "--for", "torchnccl",
                   "--", str(self.venv / "bin" / "python3"), "-c", NCCL_CHILD]
        env = self.clean_env(LD_PRELOAD=self.old)
        p = self.run_env(CLI + command, env)
        self.assertEqual(p.returncode, 4, p.stdout + p.stderr)
        self.assertIn("cudaload: exec: error:", p.stderr)
        self.assertIn("ncclCommRegister", p.stderr)
        self.assertIn("LD_PRELOAD keeps %s first" % self.old, p.stderr)
        self.assertIn("--drop-stale-preload", p.stderr)
        p = self.run_env(CLI + command[:1] + ["--drop-stale-preload"] + command[1:], env)
        self.assert_loads(p, self.site_nccl(self.venv))
        self.assertIn("LD_PRELOAD leaves out %s" % self.old, p.stderr)

    def test_exec_preloads_what_an_rpath_would_miss(self):
        """venv-old's wheel folder holds 2.18.1, which the consumer's
        DT_RPATH reaches before LD_LIBRARY_PATH: exec puts the planned
        2.21.5 in the child's LD_PRELOAD, and says so."""
        python = str(self.old_venv / "bin" / "python3")
        p = self.run_env(CLI + ["exec", "--no-defaults", "--environment", str(self.old_venv),
                                "--root", str(self.new_root), "--for", "torchnccl", "--",
                                python, "-c", NCCL_CHILD], self.clean_env())
        self.assert_loads(p, self.new)
        self.assertIn("the started program gets LD_PRELOAD=%s" % self.new, p.stderr)
        self.assertIn("by rule rpath", p.stderr)

    def test_the_programs_own_older_copy_is_one_problem_with_a_fix(self):
        """Found by the acceptance tier with torch 2.5.1 (program side, g3):
        the wheel folder's NCCL 2.18.1, which the program's DT_RPATH
        reaches and its own pin refuses, is a symbols-missing problem whose
        fix preloads the planned 2.21.5; the same copy is no second problem
        saying the two "cannot share one process" with no command to run:
        the requirement is the program's own, and the planned file loaded
        first in its place is the fix."""
        args = ["--no-defaults", "--environment", str(self.old_venv), "--root",
                str(self.new_root), "--for", "torchnccl"]
        problems = self.doctor(args, self.clean_env())
        kinds = [q["kind"] for q in problems if q["kind"] != "driver-absent"]
        self.assertEqual(kinds, ["symbols-missing"], problems)

    def test_the_printed_fix_runs_the_programs_own_command(self):
        """Item 6: with --for the run-program step starts the program's own
        command (the venv's interpreter), not PROGRAM; run as printed, then
        the env line evaluated in sh: the program loads the plan's NCCL."""
        if len(CLI) > 1:
            self.skipTest("the tool runs under %s, which puts its own preload in LD_PRELOAD"
                          % os.path.basename(CLI[0]))
        args = ["--no-defaults", "--environment", str(self.old_venv), "--root",
                str(self.new_root), "--for", "torchnccl"]
        env = self.clean_env()
        found = [q for q in self.nccl_problems(self.doctor(args, env))
                 if q["kind"] == "symbols-missing"]
        self.assertEqual(len(found), 1, found)
        self.assertEqual(found[0]["facts"]["condition"]["value"], "as-it-is", found[0])
        steps = [s for s in found[0]["fix"] if s["action"] == "run-program"]
        self.assertEqual(len(steps), 1, found[0])
        argv = steps[0]["argv"]
        self.assertEqual(argv[:2], ["cudaload", "exec"], argv)
        self.assertNotIn("PROGRAM", argv)
        self.assertEqual(argv[argv.index("--"):], ["--", str(self.old_venv / "bin" / "python3")])
        self.assertIn("your script and its arguments", steps[0]["note"])
        for word in args:
            self.assertIn(word, argv)
        self.assert_loads(self.run_env(CLI + argv[1:] + ["-c", NCCL_CHILD], env), self.new)
        # The other way the note names: the env line, evaluated first.
        p = self.run_env(CLI + ["env"] + args, env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("export LD_PRELOAD='%s'" % self.new, p.stdout)
        self.assert_loads(self.run_env(["sh", "-c", p.stdout + "\nexec \"$0\" -c \"$1\"",
                                        str(self.old_venv / "bin" / "python3"), NCCL_CHILD], env),
                          self.new)


class EnvExec(CliTestCase):
    # The trees with a cuDNN 8 and a cuDNN 9 of the tool's own platform.
    def cudnn8_tree(self):
        return ("preload", "windows", "cudnn8") if CLI_IS_WINDOWS else ("cudnn8_compat",)

    def cudnn9_tree(self):
        return ("preload", "windows", "cudnn9") if CLI_IS_WINDOWS else ("wheels-cu13", "site-packages")

    def roots(self, *trees):
        args = ["--no-defaults"]
        for t in trees:
            args += ["--root", to_cli(self.fixture(*t))]
        return args

    def test_a_cuda_variable_of_another_major_is_unset_for_the_program(self):
        """Issue 41, item 6: CUDA_PATH naming a folder of CUDA 13 libraries
        while the plan is CUDA 12: exec runs the program without it, env
        prints the line that unsets it, and each says so; a CUDA_PATH of the
        plan's own major is kept."""
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux wheel trees; the rule is portable (env_child.c)")
        cu12 = to_cli(self.fixture("wheels-cu12", "site-packages"))
        cu13 = to_cli(self.fixture("wheels-cu13", "site-packages"))
        args = ["--no-defaults", "--root", cu12, "--require", "cudart=12"]
        base = {k: v for k, v in os.environ.items()
                if k not in ("CUDA_PATH", "CUDA_HOME", "CUDNN_PATH", "LD_PRELOAD")}

        def run(argv, cuda_path):
            return subprocess.run(CLI + argv, env=dict(base, CUDA_PATH=cuda_path),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=TIMEOUT_S,
                                  universal_newlines=True)

        show = ["--", "sh", "-c", 'echo "CUDA_PATH=${CUDA_PATH-unset}"']
        p = run(["exec"] + args + show, cu13)
        self.assertEqual((p.returncode, p.stdout), (0, "CUDA_PATH=unset\n"), p.stderr)
        self.assertIn("warning: CUDA_PATH=%s holds CUDA 13 libraries" % cu13, p.stderr)
        self.assertIn("the started program goes without CUDA_PATH", p.stderr)
        for shell, line in (("sh", "unset CUDA_PATH"), ("fish", "set -e CUDA_PATH"),
                            ("cmd", 'set "CUDA_PATH="'),
                            ("powershell", "Remove-Item Env:CUDA_PATH -ErrorAction SilentlyContinue")):
            p = run(["env", "--shell", shell] + args, cu13)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.splitlines()[1:], [line], p.stdout)
        p = run(["exec", "--dry-run"] + args + show, cu13)
        self.assertIn("\nunset CUDA_PATH\n", p.stdout)
        # Of the plan's major: kept, and nothing said.
        p = run(["exec"] + args + show, cu12)
        self.assertEqual(p.stdout, "CUDA_PATH=%s\n" % cu12, p.stderr)
        self.assertNotIn("CUDA_PATH", p.stderr)

    def test_an_inactive_environment_nearby_comes_first_in_the_fix(self):
        """Issue 30: run from a project whose .venv holds the wheels but is
        not activated, the tool found nothing and said only "pip install".
        The fix names the environment first (activate it, or
        --environment); the scan lists it as not searched. A requirement no
        machine satisfies keeps the result the same everywhere."""
        project = self.tmpdir()
        (project / ".venv").mkdir()
        (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (project / "env" / "conda-meta").mkdir(parents=True)
        (project / "venv").mkdir()  # no pyvenv.cfg: not an environment
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
        venv, conda = to_cli(project / ".venv"), to_cli(project / "env")
        r = run_in(["env", "--require", "cudnn>=99"], env, cwd=str(project))
        self.assertEqual(r.rc, 4, r.describe())
        self.assertIn("fix: %s and %s are environments that are not active, so not searched: "
                      "activate the one you use or pass --environment %s" % (venv, conda, venv),
                      r.stderr, r.describe())
        self.assertIn("if they lack the library: set CUDNN_PATH", r.stderr)
        self.assertNotIn(to_cli(project / "venv") + " ", r.stderr)
        r = run_in(["scan"], env, cwd=str(project))
        self.assertIn("not searched: %s, an environment that is not active (activate it, or pass "
                      "--environment %s)" % (venv, venv), r.stdout, r.describe())
        # Given as the environment, it is searched and not offered again.
        r = run_in(["env", "--require", "cudnn>=99", "--environment", venv], env, cwd=str(project))
        self.assertEqual(r.rc, 4, r.describe())
        self.assertIn("%s (interpreter" % venv, r.stderr)
        self.assertNotIn("not active", r.stderr)
        # Activated (VIRTUAL_ENV), the same.
        r = run_in(["env", "--require", "cudnn>=99"], dict(env, VIRTUAL_ENV=venv), cwd=str(project))
        self.assertIn("%s (VIRTUAL_ENV" % venv, r.stderr, r.describe())
        self.assertNotIn("%s and" % venv, r.stderr)

    def test_usage_errors(self):
        self.assert_usage_error(["env"], ["--require"])
        self.assert_usage_error(["env", "--require"], ["--require"])
        self.assert_usage_error(["env", "--require", "cudnn~8"], ["cudnn~8"])
        self.assert_usage_error(["env", "--require", "nosuchlib=1"], ["nosuchlib"])
        # Issue 33, item 14: a name with a letter outside ASCII is quoted
        # whole, not cut at that letter ("c").
        self.assert_usage_error(["env", "--require", "c\u00fcdnn=9"],
                                ['unknown library "c\u00fcdnn"'])
        self.assert_usage_error(["env", "--require", "\u00e7ublas"],
                                ['unknown library "\u00e7ublas"'])
        # Issue 12, minor: refused, not clamped to 999999999; the reason of a
        # long spec is kept.
        self.assert_usage_error(["env", "--require", "cudnn=9999999999999999999"],
                                ["9999999999999999999", "larger than 999999999"])
        # Far beyond the 8 KiB message buffer; 3,000 entries on Windows,
        # whose command line holds at most 32,767 characters.
        count = 3000 if CLI_IS_WINDOWS else 7000
        self.assert_usage_error(["env", "--require", ",".join(["cudnn=8"] * count) + ","],
                                ["empty entry", "entry %d of %d" % (count + 1, count + 1)])
        self.assert_usage_error(["env", "--require", "cudnn", "--shell", "zsh"], ["zsh"])
        self.assert_usage_error(["env", "--require", "cudnn", "--root", ""], ["--root"])
        self.assert_usage_error(["exec", "--require", "cudnn"], ["command"])
        self.assert_usage_error(["exec", "--require", "cudnn", "--"], ["command"])
        self.assert_usage_error(["exec", "--require", "cudnn", "ls"], ["ls"])

    def test_help_mentions_every_option(self):
        for command, options in (("env", ["--require", "--root", "--no-defaults", "--shell", "--dry-run"]),
                                 ("exec", ["--require", "--root", "--no-defaults", "--dry-run"])):
            r = self.run_ok(command, "--help")
            for option in options:
                self.assertIn(option, r.stdout, r.describe())
            self.assertIn("EXIT STATUS", r.stdout)

    @unittest.skipIf(os.name == "nt", "POSIX shell lines")
    def test_env_warns_of_a_lazily_opened_library_no_root_holds(self):
        # Issue 14, 4: cuDNN 8 opens libcublas.so.12 by name at its first
        # call; without one the plan succeeds and says so on stderr, and
        # stdout stays the one shell line.
        if CLI_IS_WINDOWS:
            self.skipTest("sh lines are checked against a Linux build")
        compat = self.fixture("cudnn8_compat")
        r = self.run_ok("env", "--require", "cudnn=8", *self.roots(("cudnn8_compat",)))
        warnings = [l for l in r.stderr.splitlines() if l]
        self.assertEqual(len(warnings), 1, r.describe())
        self.assertTrue(warnings[0].startswith("cudaload: env: warning: "), r.describe())
        for part in ("libcublas.so.12", "libcublasLt.so.12", "--require cublas=12",
                     "nvidia-cublas-cu12"):
            self.assertIn(part, warnings[0], r.describe())
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 1, r.describe())
        name, value = shell_value(lines[0])
        self.assertEqual(name, "LD_LIBRARY_PATH")
        self.assertTrue(same_file(value.split(":")[0], compat), value)
        # exec says it too, and still runs the command.
        r = self.run_ok("exec", "--require", "cudnn=8", *self.roots(("cudnn8_compat",)),
                        "--", sys.executable, "-c", "print('ran')")
        self.assertIn("cudaload: exec: warning: ", r.stderr, r.describe())
        self.assertEqual(r.stdout.strip(), "ran", r.describe())
        # With a root that holds cuBLAS 12 (a CUDA 12.4 toolkit): no warning,
        # and its folder is on the variable, where the lazy open looks.
        toolkit_lib = self.fixture("toolkit", "cuda-12.4", "targets", "x86_64-linux", "lib")
        r = self.run_ok("env", "--require", "cudnn=8",
                        *self.roots(("cudnn8_compat",), ("toolkit", "cuda-12.4")))
        self.assertEqual(r.stderr, "", r.describe())
        name, value = shell_value(r.stdout.splitlines()[0])
        self.assertTrue(any(same_file(e, toolkit_lib) for e in value.split(":")), value)

    def test_links_into_a_folder_others_can_write_to_are_refused(self):
        # Issue 19, 5: a root only its owner can write to, whose lib/ holds
        # cuDNN 8 as links into a folder every user can write to (0777):
        # scan and env refuse the files and name that folder; the flag that
        # accepts writable roots accepts them.
        if os.name == "nt":
            self.skipTest("POSIX symlinks and modes")
        if CLI_IS_WINDOWS:
            self.skipTest("Wine shows a Unix symlink as the file itself (no reparse point; "
                          "GetFinalPathNameByHandleW names the link), so no link is followed there; "
                          "the folder on the way is checked in Scan")
        fixture = self.fixture(*self.cudnn8_tree())
        work = self.tmpdir()
        store, root = work / "open", work / "root"
        links = root / "lib"
        store.mkdir()
        links.mkdir(parents=True)
        for f in sorted(fixture.iterdir()):
            if f.is_file():
                shutil.copy(f, store / f.name)
                (links / f.name).symlink_to(store / f.name)
        store.chmod(0o777)
        shown = to_cli(store.resolve())
        r = self.run_ok("scan", "--no-defaults", "--root", to_cli(root), "--format", "json", rc=3)
        self.assertEqual(library_named(self.parse_json(r), "cudnn"), [], r.describe())
        for part in (shown, "writable by", "--allow-writable-roots"):
            self.assertIn(part, r.stderr, r.describe())
        r = self.run_ok("env", "--require", "cudnn=8", "--no-defaults", "--root", to_cli(root), rc=4)
        self.assertEqual(r.stdout, "", r.describe())
        self.assertIn(shown, r.stderr, r.describe())
        self.assertIn("writable by", r.stderr, r.describe())
        # The caller accepts it: listed from there, and first on the path.
        r = self.run_ok("scan", "--no-defaults", "--allow-writable-roots", "--root", to_cli(root),
                        "--format", "json")
        found = library_named(self.parse_json(r), "cudnn", 8)
        self.assertEqual(len(found), 1, r.describe())
        self.assertTrue(same_file(os.path.dirname(from_cli(found[0]["path"])), store), r.describe())
        r = self.run_ok("env", "--require", "cudnn=8", "--allow-writable-roots", "--no-defaults",
                        "--root", to_cli(root))
        if not CLI_IS_WINDOWS:
            name, value = shell_value(r.stdout.splitlines()[0])
            self.assertTrue(same_file(value.split(":")[0], store), value)

    @unittest.skipIf(os.name == "nt", "POSIX shell lines")
    def test_env_puts_plan_folders_first(self):
        if CLI_IS_WINDOWS:
            self.skipTest("sh lines are checked against a Linux build")
        compat = self.fixture("cudnn8_compat")
        cu13 = self.fixture("wheels-cu13", "site-packages")
        r = self.run_ok("env", "--require", "cudnn=8,cudnn=9", *self.roots(("cudnn8_compat",), ("wheels-cu13", "site-packages")))
        # cuDNN 8 opens cuBLAS 12 by name, which neither root holds (issue
        # 14, 4): the one thing on stderr.
        self.assertEqual([l for l in r.stderr.splitlines() if "warning" not in l], [], r.describe())
        self.assertIn("libcublas.so.12", r.stderr, r.describe())
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 1, r.describe())
        name, value = shell_value(lines[0])
        self.assertEqual(name, "LD_LIBRARY_PATH")
        entries = value.split(":")
        self.assertTrue(same_file(entries[0], compat), entries)
        self.assertTrue(same_file(entries[1], cu13 / "nvidia" / "cudnn" / "lib"), entries)
        self.assertTrue(all(e and os.path.isabs(e) for e in entries), entries)
        self.assertEqual(len(entries), len(set(entries)), entries)

    @unittest.skipIf(os.name == "nt", "POSIX environment")
    def test_env_is_idempotent_and_drops_unsafe_entries(self):
        if CLI_IS_WINDOWS:
            self.skipTest("checked against a Linux build")
        args = ["env", "--require", "cudnn=8"] + self.roots(("cudnn8_compat",))
        env = dict(os.environ, LD_LIBRARY_PATH="/usr/lib::.:rel/dir")
        first = subprocess.run(CLI + args, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        self.assertEqual(first.returncode, 0, first.stderr)
        _, value = shell_value(first.stdout.strip())
        self.assertEqual(value.split(":")[1:], ["/usr/lib"])
        env["LD_LIBRARY_PATH"] = value
        second = subprocess.run(CLI + args, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        self.assertEqual(shell_value(second.stdout.strip())[1], value)

    def test_shells_quote_for_themselves(self):
        expected = {"sh": "export ", "fish": "set -gx ", "cmd": 'set "', "powershell": "$env:"}
        for shell, start in expected.items():
            r = self.run_ok("env", "--require", "cudnn=8", "--shell", shell, *self.roots(self.cudnn8_tree()))
            self.assertTrue(r.stdout.startswith(start), r.describe())

    def test_missing_requirement_exits_4_with_the_fix(self):
        r = self.run_ok("env", "--require", "cudnn=8", *self.roots(self.cudnn9_tree()), rc=4)
        self.assertEqual(r.stdout, "", r.describe())
        for needle in ("cudnn=8", "searched", "major 9, not 8", "pip install", "CUDNN_PATH"):
            self.assertIn(needle, r.stderr, r.describe())
        r = self.run_ok("exec", "--require", "cudnn=8", *self.roots(self.cudnn9_tree()), "--", "true", rc=4)
        self.assertIn("cudnn=8", r.stderr)

    def test_missing_cudnn8_beside_a_cudnn9_wheel_installs_into_its_own_folder(self):
        # A plain pip install would put cuDNN 8 into the nvidia/cudnn folder
        # the environment's cuDNN 9 wheel owns (lib/load/fix_lines.c).
        if CLI_IS_WINDOWS:
            self.skipTest("the Windows cuDNN 9 tree is not a wheel")
        r = self.run_ok("env", "--require", "cudnn=8", *self.roots(self.cudnn9_tree()), rc=4)
        target = os.path.join(os.path.realpath(str(self.fixture("wheels-cu13"))), "cudnn8")
        self.assertIn("python -m pip install --no-deps --target %s 'nvidia-cudnn-cu12==8.9.*'"
                      % shlex.quote(target), r.stderr, r.describe())
        self.assertIn("then pass that folder as a root", r.stderr)
        self.assertNotIn("pip install 'nvidia-cudnn", r.stderr)

    def test_dry_run_shows_the_plan(self):
        r = self.run_ok("env", "--require", "cudnn=8", "--dry-run", *self.roots(self.cudnn8_tree()))
        self.assertIn("plan (7 files", r.stdout, r.describe())
        # Linux: the sub-libraries are preloaded because the main library has
        # no RUNPATH $ORIGIN; Windows: found through PATH/AddDllDirectory.
        self.assertIn("AddDllDirectory" if CLI_IS_WINDOWS else "RUNPATH", r.stdout)
        self.assertIn("cudnn_ops_infer", r.stdout)
        r = self.run_ok("exec", "--require", "cudnn=8", "--dry-run", *self.roots(self.cudnn8_tree()), "--", "no-such-program-x")
        self.assertIn("command: no-such-program-x", r.stdout, r.describe())

    def test_exec_on_windows_passes_path_and_exit_code(self):
        if not CLI_IS_WINDOWS:
            self.skipTest("the Windows build runs COMMAND with CreateProcessW")
        folder = self.fixture(*self.cudnn8_tree())
        r = self.run_ok("exec", "--require", "cudnn=8", *self.roots(self.cudnn8_tree()), "--",
                        "cmd", "/c", "echo %PATH%& exit 7", rc=7)
        first = r.stdout.strip().split(";")[0]
        self.assertTrue(same_file(first, folder), r.describe())
        r = self.run_ok("exec", "--require", "cudnn=8", *self.roots(self.cudnn8_tree()), "--",
                        "no-such-program-x.exe", rc=127)
        self.assertIn("no-such-program-x", r.stderr)

    @unittest.skipIf(os.name == "nt", "POSIX exec")
    def test_exec_passes_variable_and_exit_code(self):
        if CLI_IS_WINDOWS:
            self.skipTest("checked against a Linux build")
        compat = self.fixture("cudnn8_compat")
        r = self.run_ok("exec", "--require", "cudnn=8", *self.roots(("cudnn8_compat",)), "--",
                        "sh", "-c", 'echo "$LD_LIBRARY_PATH"; exit 7', rc=7)
        self.assertTrue(same_file(r.stdout.strip().split(":")[0], compat), r.describe())
        r = self.run_ok("exec", "--require", "cudnn=8", *self.roots(("cudnn8_compat",)), "--",
                        "no-such-program-x", rc=127)
        self.assertIn("no-such-program-x", r.stderr)

    def test_relative_root_plans_what_the_absolute_root_plans(self):
        tree = self.fixture(*self.cudnn8_tree())
        here = Path(os.path.realpath(str(tree.parent)))
        absolute = ["--no-defaults", "--root", to_cli(here / tree.name)]
        relative = ["--no-defaults", "--root", "./" + tree.name]
        if CLI_IS_WINDOWS:
            show = ["cmd", "/c", "echo %PATH%"]
        else:
            show = ["sh", "-c", 'echo "$LD_LIBRARY_PATH"']
        for command in (["env", "--require", "cudnn=8"],
                        ["env", "--require", "cudnn=8", "--dry-run"],
                        ["exec", "--require", "cudnn=8", "--dry-run", "--", "app"],
                        ["exec", "--require", "cudnn=8", "--"] + show):
            split = command.index("--") if "--" in command else len(command)
            expected = self.run_ok(*(command[:split] + absolute + command[split:]))
            self.assertIn(to_cli(here / tree.name), expected.stdout, expected.describe())
            r = run_cli(*(command[:split] + relative + command[split:]), cwd=str(here))
            self.assertEqual(r.rc, 0, r.describe())
            self.assertEqual(r.stdout, expected.stdout, "from %s\n%s" % (here, r.describe()))


# ==========================================================================
# Text outside ASCII on the command line and in variables (issue 19, 1)
# ==========================================================================

# Names outside ASCII and outside any one ANSI code page: Latin-1 (é is 0xE9
# in code page 1252, which is not UTF-8), CJK (code page 1252 has no form for
# it: "??") and an emoji (a surrogate pair in UTF-16).
NON_ASCII = ("José", "日本", "😀", "Zoë 日本 😀")

# Arguments that mean something to cmd.exe or to the quoting of a Windows
# command line; a program exec starts must receive each unchanged.
HOSTILE_ARGUMENTS = (
    'x" & echo INJECTED1 & "',
    '"&echo INJECTED2',
    "a & echo INJECTED3",
    "%PATH%",
    "%%CD%%",
    "!PATH!",
    "^",
    "a|b",
    "<in",
    ">out",
    "(x)",
    'a\\"b',
    'a\\\\"b',
    "trail\\",
    "trail space\\",
    "\\\\server\\share\\",
    '"',
    '""',
    "",
    " lead and trail ",
    "tab\there",
    "Zoë 日本 😀",
)


def utf8_env(**extra):
    """The environment of a run that passes text outside ASCII. Wine makes
    the Windows command line and environment from the Unix ones in the
    charset of the Unix locale: without a UTF-8 locale, "é" would not reach
    the tool as é whatever the tool does."""
    env = dict(os.environ, LC_ALL="C.UTF-8")
    env.update(extra)
    return env


def search_path_env(entries):
    """utf8_env() with `entries` on the search-path variable the tool's
    `env` extends. Under Wine the Windows PATH is made from WINEPATH (which
    scripts/wine-run extends), not from the Unix PATH."""
    if not CLI_IS_WINDOWS:
        return utf8_env(LD_LIBRARY_PATH=":".join(entries))
    if os.name == "nt":
        return utf8_env(PATH=";".join(entries + [os.environ.get("PATH", "")]))
    return utf8_env(WINEPATH=";".join(entries))


def run_in(args, env, cwd=None):
    proc = subprocess.run(CLI + list(args), env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
    return Result(list(args), proc)


def printed_args(test, r):
    """What print_args.c printed: (its arguments, its search path or None)."""
    args, path = [], None
    for line in r.stdout.splitlines():
        kind, _, value = line.partition(" ")
        test.assertIn(kind, ("arg", "path"), r.describe())
        text = bytes.fromhex(value).decode("utf-8", "backslashreplace")
        if kind == "arg":
            args.append(text)
        else:
            path = text
    return args, path


class CommandLine(CliTestCase):
    def cudnn8_tree(self):
        return ("preload", "windows", "cudnn8") if CLI_IS_WINDOWS else ("cudnn8_compat",)

    def tree_in(self, name):
        """A copy of the cuDNN 8 tree, in a folder called `name`."""
        source = self.fixture(*self.cudnn8_tree())
        copy = self.tmpdir() / name / source.name
        shutil.copytree(str(source), str(copy), symlinks=True)
        return copy

    def child(self):
        if PRINT_ARGS is None and len(CLI) > 1 and not CLI_IS_WINDOWS:
            self.skipTest("the tool runs under an emulator (%s), which cannot start a child "
                          "built for the target: no --print-args child given" % CLI[0])
        if PRINT_ARGS is None or not PRINT_ARGS.is_file():
            self.skipTest("no --print-args child (tests/cli/print_args.c) given")
        return to_cli(PRINT_ARGS)

    def exec_args(self, root=None):
        root = root or self.fixture(*self.cudnn8_tree())
        return ["exec", "--require", "cudnn=8", "--no-defaults", "--root", to_cli(root), "--"]

    def test_non_ascii_roots_reach_the_library(self):
        # Windows gave main() "Jos\xE9" and "??": "not valid UTF-8", "not
        # found".
        roots = [self.tree_in(name) for name in NON_ASCII]
        args = ["scan", "--no-defaults"]
        for root in roots:
            args += ["--root", to_cli(root)]
        r = run_in(args + ["--format", "json"], utf8_env())
        self.assertEqual(r.rc, 0, r.describe())
        doc = self.parse_json(r)
        self.assertEqual([root["status"] for root in doc["roots"]], ["ok"] * len(roots), r.describe())
        for name, root, printed in zip(NON_ASCII, roots, doc["roots"]):
            self.assertIn(name, printed["path"], r.describe())
            self.assertTrue(same_file(printed["path"], root), r.describe())
        # Each root's libraries are found (a library names its root by index).
        self.assertEqual({lib["root"] for lib in doc["libraries"]}, set(range(len(roots))), r.describe())
        # The text report shows the names as they are: UTF-8, not escaped.
        r = run_in(args, utf8_env())
        self.assertEqual(r.rc, 0, r.describe())
        for name in NON_ASCII:
            self.assertIn(name, r.stdout, r.describe())
        self.assertNotIn("\\x", r.stdout, r.describe())

    def test_exec_passes_non_ascii_arguments_root_and_path(self):
        child = self.child()
        root = self.tree_in(NON_ASCII[-1])
        existing = self.existing_entries()
        r = run_in(self.exec_args(root) + [child] + list(NON_ASCII), search_path_env(existing))
        self.assertEqual(r.rc, 0, r.describe())
        args, path = printed_args(self, r)
        self.assertEqual(args, list(NON_ASCII), r.describe())
        entries = path.split(";" if CLI_IS_WINDOWS else ":")
        self.assertTrue(same_file(entries[0], root), r.describe())
        self.assertIn(NON_ASCII[-1], entries[0], r.describe())
        for entry in existing:
            self.assertIn(entry, entries, r.describe())

    def existing_entries(self):
        """Absolute search-path entries outside ASCII, folders or not."""
        if CLI_IS_WINDOWS:
            return ["C:\\" + name for name in NON_ASCII]
        return ["/opt/" + name for name in NON_ASCII]

    def test_env_keeps_non_ascii_entries_of_the_search_path(self):
        # Windows: the narrow getenv gave PATH in the ANSI code page, and the
        # line printed would have set "C:\Jos\xE9" and "C:\??".
        existing = self.existing_entries()
        env = search_path_env(existing)
        root = self.fixture(*self.cudnn8_tree())
        plan = ["env", "--require", "cudnn=8", "--no-defaults", "--root", to_cli(root)]
        variable = "PATH" if CLI_IS_WINDOWS else "LD_LIBRARY_PATH"
        for extra, start in (([], 'set "PATH=' if CLI_IS_WINDOWS else "export LD_LIBRARY_PATH='"),
                             (["--dry-run"], variable + "=")):
            r = run_in(plan + extra, env)
            self.assertEqual(r.rc, 0, r.describe())
            lines = [line for line in r.stdout.splitlines() if line.startswith(start)]
            self.assertEqual(len(lines), 1, r.describe())
            value = lines[0][len(start):].rstrip("'\"")
            entries = value.split(";" if CLI_IS_WINDOWS else ":")
            self.assertTrue(same_file(entries[0], root), r.describe())
            for entry in existing:
                self.assertIn(entry, entries, r.describe())

    def test_exec_passes_hostile_arguments_exactly(self):
        child = self.child()
        r = run_in(self.exec_args() + [child] + list(HOSTILE_ARGUMENTS), utf8_env())
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(printed_args(self, r)[0], list(HOSTILE_ARGUMENTS), r.describe())

    # ----------------------------------------------------------------------
    # Batch files (issue 19, 2): CreateProcessW runs a .bat or .cmd through
    # cmd.exe, which parses the command line again by its own rules, so an
    # argument could run commands (CVE-2024-24576, "BatBadBut"). exec
    # refuses them (docs/cli.md, "exec").

    def batch_folder(self):
        """A folder with batch files that leave ran.txt beside them when they
        run, and print their arguments."""
        folder = self.tmpdir()
        script = b'@echo off\r\necho ran>"%~dp0ran.txt"\r\necho ARGS %*\r\n'
        for name in ("t.bat", "u.CMD"):
            (folder / name).write_bytes(script)
        return folder

    def test_exec_refuses_batch_files(self):
        if not CLI_IS_WINDOWS:
            self.skipTest("a Windows build runs COMMAND with CreateProcessW")
        folder = self.batch_folder()
        # Any case, the trailing dots and spaces Windows drops from a name
        # (CVE-2024-43402), a path with either separator.
        names = ["t.bat", "T.BAT", "t.Bat", "u.CMD", "u.cmd", "t.bat.", "t.bat ", "t.bat. .",
                 to_cli(folder / "t.bat"), to_cli(folder / "t.bat").replace("\\", "/")]
        for name in names:
            with self.subTest(name=name):
                r = run_in(self.exec_args() + [name] + list(HOSTILE_ARGUMENTS), utf8_env(), cwd=str(folder))
                self.assertNotIn("INJECTED", r.stdout, r.describe())
                self.assertEqual(r.rc, 126, r.describe())
                self.assertIn("a batch file", r.stderr, r.describe())
                self.assertFalse((folder / "ran.txt").exists(), r.describe())
        # With no argument at all too: the rule is the name's.
        r = run_in(self.exec_args() + ["t.bat"], utf8_env(), cwd=str(folder))
        self.assertEqual(r.rc, 126, r.describe())
        # A quote in the name: CreateProcessW would end the name there and
        # run another file; no Windows file name holds one.
        r = run_in(self.exec_args() + ['t.bat" & echo INJECTED & ".exe'], utf8_env(), cwd=str(folder))
        self.assertEqual(r.rc, 126, r.describe())
        self.assertIn("not a Windows file name", r.stderr, r.describe())
        self.assertFalse((folder / "ran.txt").exists(), r.describe())
        # cmd.exe named as COMMAND is what the message offers: the caller
        # quotes for cmd (here, nothing to quote).
        r = run_in(self.exec_args() + ["cmd", "/d", "/c", "t.bat", "plain"], utf8_env(), cwd=str(folder))
        self.assertEqual(r.rc, 0, r.describe())
        self.assertIn("ARGS plain", r.stdout, r.describe())

    def test_exec_does_not_reach_a_batch_file_through_pathext(self):
        # CreateProcessW appends ".exe" to a name without an extension and
        # never reads PATHEXT: "t" is not t.bat, in the current folder or on
        # PATH.
        if not CLI_IS_WINDOWS:
            self.skipTest("a Windows build runs COMMAND with CreateProcessW")
        folder = self.batch_folder()
        env = search_path_env([to_cli(folder)])
        env["PATHEXT"] = ".COM;.EXE;.BAT;.CMD"
        for name in ("t", "u"):
            with self.subTest(name=name):
                r = run_in(self.exec_args() + [name, 'x" & echo INJECTED & "'], env, cwd=str(folder))
                self.assertNotIn("INJECTED", r.stdout, r.describe())
                self.assertEqual(r.rc, 127, r.describe())
                self.assertFalse((folder / "ran.txt").exists(), r.describe())


DOCTOR_KEYS = ("schema_version", "platform", "driver", "driver_support", "manifest", "roots", "libraries",
               "requirements", "plan", "loaded", "conflicts", "probe", "watchdog", "environment", "problems",
               "notes", "cuda_major", "error_messages")
# Every section the help names, in order; a report leaves out the Error
# message without --error, and the Display watchdog where there is none
# (Windows only has TDR).
DOCTOR_HELP_SECTIONS = ("Error message", "Platform", "Driver", "Libraries found", "Plan",
                        "Loaded in this process", "Conflicts", "Probe", "Display watchdog",
                        "Environment", "Problems and fixes")
DOCTOR_SECTIONS = tuple(s for s in DOCTOR_HELP_SECTIONS if s != "Error message" and
                        (CLI_IS_WINDOWS or s != "Display watchdog"))
PLAN_STATES = {"planned", "loaded", "already-loaded", "loaded-elsewhere", "failed", "not-needed"}


def check_probe_device(test, device):
    """A device of the probe's schema (docs/probe.md), with how it runs."""
    test.assertEqual(set(device), {"name", "compute_capability", "memory_mib", "uuid", "driver_model",
                                   "kernel_timeout", "compute_mode", "integrated", "free_memory_mib"})
    # Linux has no driver models; Windows has WDDM and TCC.
    test.assertIn(device["driver_model"],
                  ("WDDM", "TCC", None) if CLI_IS_WINDOWS else ("not_applicable",), device)
    test.assertIn(device["compute_mode"],
                  ("default", "exclusive_thread", "prohibited", "exclusive_process", None), device)
    for key in ("kernel_timeout", "integrated"):
        test.assertIn(device[key], (True, False, None), device)
    test.assertTrue(device["free_memory_mib"] is None or device["free_memory_mib"] >= 0, device)


def check_watchdog(test, watchdog):
    """The display watchdog object of docs/doctor.md: Windows' TDR settings, or
    Linux's nothing to read."""
    test.assertEqual(set(watchdog), {"applies", "key", "tdr_delay_s", "tdr_delay_source",
                                     "tdr_ddi_delay_s", "tdr_ddi_delay_source", "tdr_level",
                                     "tdr_level_source", "error", "note"})
    test.assertEqual(watchdog["applies"], CLI_IS_WINDOWS, watchdog)
    if not CLI_IS_WINDOWS:
        test.assertIn("only Windows has TDR", watchdog["note"])
        test.assertEqual({k for k, v in watchdog.items() if v is not None}, {"applies", "note"})
        return
    test.assertEqual(watchdog["key"], "HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers")
    test.assertIsInstance(watchdog["tdr_delay_s"], int)
    test.assertIsInstance(watchdog["tdr_ddi_delay_s"], int)
    test.assertIn(watchdog["tdr_level"], ("off", "bugcheck", "recover_vga", "recover", "unknown"))
    for key in ("tdr_delay_source", "tdr_ddi_delay_source", "tdr_level_source"):
        test.assertIn(watchdog[key], ("registry", "default"))


def check_doctor_schema(test, doc):
    """The schema of docs/doctor.md, field by field."""
    test.assertIsInstance(doc, dict)
    test.assertEqual(sorted(doc), sorted(DOCTOR_KEYS), doc)
    test.assertEqual(doc["schema_version"], 3)
    platform = doc["platform"]
    test.assertIn(platform["os"], ("linux", "windows"))
    test.assertIsInstance(platform["arch"], str)
    test.assertEqual(platform["cudaload_version"], header_version())
    if doc["driver"] is not None:
        test.assertEqual(sorted(doc["driver"]), ["cuda_version", "path", "source", "version"])
        test.assertIn(doc["driver"]["source"], ("probe", "scan", "loaded"))
    # The libraries are exactly what `cudaload scan` reports.
    check_scan_schema(test, {"schema_version": 1, "target": platform["os"],
                             "roots": doc["roots"], "libraries": doc["libraries"]})
    for r in doc["requirements"]:
        test.assertEqual(sorted(r), ["cuda_major", "from", "origin", "path", "satisfied", "second_cuda_major", "spec", "tier"])
        test.assertIsInstance(r["satisfied"], bool)
        test.assertEqual(r["path"] is not None, r["satisfied"], r)
    for p in doc["plan"]:
        test.assertEqual(sorted(p), ["major", "name", "path", "reason", "state"])
        test.assertIn(p["state"], PLAN_STATES)
        test.assertIsInstance(p["major"], int)
    test.assertIsInstance(doc["loaded"], list)
    for c in doc["conflicts"]:
        test.assertEqual(sorted(c), ["path", "text"])
    for n in doc["notes"]:
        check_problem_record(test, n, "note")
    if doc["probe"] is not None:
        # The probe's own schema (docs/probe.md), from its one writer.
        test.assertEqual(sorted(doc["probe"]), ["devices", "driver", "reason", "runtime_version",
                                                "stages", "summary", "verdict"])
        for device in doc["probe"]["devices"]:
            check_probe_device(test, device)
        test.assertIn(doc["probe"]["verdict"], ("GPU_OK", "CPU_FALLBACK"))
        test.assertEqual([s["name"] for s in doc["probe"]["stages"]],
                         ["driver", "init", "devices", "context", "runtime", "cublas", "cudnn"])
        for s in doc["probe"]["stages"]:
            test.assertIn(s["status"], ("ok", "failed", "skipped", "warning"))
    check_watchdog(test, doc["watchdog"])
    for m in doc["error_messages"]:
        test.assertEqual(sorted(m), ["diagnosis", "facts", "file", "kind", "needed_by", "quote",
                                     "requirement"], m)
        test.assertIn(m["kind"], ("library-missing", "library-or-dependency", "cublas-not-initialized",
                                  "driver-too-old", "no-kernel-image", "symbol-missing",
                                  "version-mismatch", "driver-missing", "cuda-unavailable",
                                  "package-conflict"))
        test.assertTrue(m["quote"] and m["diagnosis"], m)
        # Each fact the message states, with the words it was read from.
        test.assertIn("cause", m["facts"], m)
        for name, fact in m["facts"].items():
            test.assertEqual(sorted(fact), ["source", "value"], (name, fact))
            test.assertTrue(fact["value"], (name, fact))
    for e in doc["environment"]:
        test.assertEqual(sorted(e), ["effect", "name", "value"], e)
    for p in doc["problems"]:
        check_problem_record(test, p, "problem")


PROBLEM_KINDS = ("unsatisfied", "not-found", "lazy-not-found", "symbols-missing", "wrong-library",
                 "shadowed", "binds-elsewhere", "two-versions", "cuda-majors", "preloaded-copy",
                 "loaded-copy", "conflict", "load-failed", "root-refused", "root-unusable", "orphan",
                 "lazy-unprovided", "driver-absent", "driver-too-old", "probe-failed", "zlib-missing",
                 "device", "variable", "message", "unreadable", "stopped", "in-process", "empty-entry",
                 "plugin-unusable", "path-missing", "older-release", "newer-release", "cpu-build", "pin",
                 "driver-hidden", "unknown-library", "no-gpu-code", "cublas-init", "same-files",
                 "if-used", "pin-unread", "version-untrusted", "needed-unprovided", "case-twins",
                 "shared-name", "unexposed")
FACT_NAMES = ("requirement", "family", "library", "major", "cuda_major", "consumer", "name", "taken",
              "better", "path", "version", "wanted", "symbol", "version_node", "rule", "reason",
              "driver", "quote", "package", "variable", "stage", "condition", "device", "count",
              "total", "searched", "other_path", "other_version", "other_cuda_major", "among",
              "loaded_by", "causes", "platform", "value", "other_package")
FIX_ACTIONS = ("note", "install", "set-variable", "run-program", "command", "choice")


def run_program_words(test, problem):
    """The words of a problem's fix step that runs the program through
    cudaload, between "cudaload" and "-- PROGRAM": ["exec", ...]. The text
    report prints that step as one line, alone."""
    steps = [s for s in problem["fix"] if s["action"] == "run-program"]
    test.assertEqual(len(steps), 1, problem)
    argv = steps[0]["argv"]
    test.assertEqual(argv[:2], ["cudaload", "exec"], problem)
    test.assertEqual(argv[-2:], ["--", "PROGRAM"], problem)
    return argv[1:-2]


def check_problem_record(test, p, text_key):
    """A problem (or note) of docs/doctor.md: its kind, its sentence, its
    facts each with where it came from, and its fix as steps."""
    test.assertEqual(sorted(p), sorted(["facts", "fix", "fix_text", "kind", text_key]), p)
    test.assertIn(p["kind"], PROBLEM_KINDS, p)
    test.assertTrue(p[text_key], p)
    for name, fact in p["facts"].items():
        test.assertIn(name, FACT_NAMES, p)
        test.assertEqual(sorted(fact), ["from", "value"], p)
        test.assertIn(fact["from"], ("machine", "program", "message", "request"), p)
        test.assertIsInstance(fact["value"], str)
    test.assertTrue(p["fix"], "every problem has a fix: %r" % p)
    for step in p["fix"]:
        test.assertIn(step["action"], FIX_ACTIONS, p)
        if step["action"] == "note":
            test.assertEqual(sorted(step), ["action", "note"], p)
            continue
        test.assertTrue(set(step) <= {"action", "argv", "env", "note"}, p)
        test.assertTrue(step["argv"] or step["env"], p)
        test.assertTrue(all(isinstance(w, str) for w in step["argv"]), p)
        test.assertTrue(all(isinstance(k, str) and isinstance(v, str) for k, v in step["env"].items()), p)
    test.assertTrue(p["fix_text"], p)
    test.assertNotIn("\n", p["fix_text"], "fix_text is one line: %r" % p)


_cli_yaml = None


def cli_has_yaml():
    """Whether the tool was built with libyaml (CUDALOAD_WITH_YAML), which
    it needs to read manifests; every build writes YAML reports."""
    global _cli_yaml
    if _cli_yaml is None:
        with tempfile.TemporaryDirectory() as d:
            manifest = os.path.join(d, "cudaload.yaml")
            with open(manifest, "w") as f:
                f.write("probe: false\n")
            r = run_cli("doctor", "--no-defaults", "--manifest", manifest)
            _cli_yaml = "YAML reader" not in r.stderr
    return _cli_yaml


class Doctor(CliTestCase):
    def require_yaml(self):
        """Skip a manifest/YAML test in a build without libyaml, after checking
        that such a build refuses manifests the documented way."""
        if cli_has_yaml():
            return
        d = self.tmpdir()
        (d / "cudaload.yaml").write_text("probe: true\n")
        r = self.doctor("--no-defaults", "--manifest", to_cli(d / "cudaload.yaml"), rc=3)
        self.assertIn("cannot read YAML manifests", r.stderr, r.describe())
        self.skipTest("the tool is built without libyaml (CUDALOAD_WITH_YAML=OFF)")

    def test_each_choice_says_its_tier_and_cuda_major(self):
        """One CUDA major per plan (docs/scan-contract.md): a CUDA 13
        environment with CUDA 12 wheels beside it takes cudart 13; cudnn=8
        (no CUDA 13 build) and cublas=12 (named) take CUDA 12, and say so."""
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux wheel trees: checked against a Linux build")
        cu13 = self.fixture("wheels-cu13", "site-packages")
        cu12 = self.fixture("wheels-cu12", "site-packages")
        args = ["--no-defaults", "--environment", to_cli(cu13), "--environment", to_cli(cu12),
                "--require", "cudart,cudnn=8,cublas=12"]
        doc = self.parse_json(self.doctor(*(args + ["--format", "json"])))
        self.assertEqual(doc["cuda_major"]["major"], 13, doc["cuda_major"])
        self.assertIn("active environment", doc["cuda_major"]["reason"])
        got = {q["spec"]: (q["tier"], q["origin"], q["cuda_major"], q["second_cuda_major"])
               for q in doc["requirements"]}
        self.assertEqual(got, {"cudart": ("environment", "interpreter", 13, False),
                               "cudnn=8": ("environment", "interpreter", 12, True),
                               "cublas=12": ("environment", "interpreter", 12, True)}, got)
        text = self.doctor("--verbose", *args).stdout
        self.assertIn("cuda major    13 (the CUDA major of the libraries in the active "
                      "environment's folders)", text)
        self.assertIn("decided by tier environment (interpreter), CUDA 12: a second CUDA major, "
                      "named by the requirement", text)
        self.assertIn("decided by tier environment (interpreter), CUDA 12: a second CUDA major, "
                      "the only one that satisfies the requirement", text)
        # A pin holds every family to CUDA 12.
        doc = self.parse_json(self.doctor(*(args[:-1] + ["cudart,cuda=12", "--format", "json"])))
        self.assertEqual(doc["cuda_major"], {"major": 12, "reason": "pinned by cuda=12"})
        self.assertEqual(doc["requirements"][0]["cuda_major"], 12, doc["requirements"])

    def cudnn8_tree(self):
        return ("preload", "windows", "cudnn8") if CLI_IS_WINDOWS else ("cudnn8_compat",)

    def driver_root(self):
        """A folder with a file named like the driver, so the report can be clean."""
        d = self.tmpdir()
        (d / ("nvcuda.dll" if CLI_IS_WINDOWS else "libcuda.so.580.65.06")).write_bytes(b"")
        return d

    def doctor(self, *args, rc=None, env=None, cwd=None):
        proc = subprocess.run(CLI + ["doctor"] + list(args), env=env, cwd=cwd,
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        r = Result(["doctor"] + list(args), proc)
        if rc is not None:
            self.assertEqual(r.rc, rc, r.describe())
        return r

    def test_help_mentions_every_option(self):
        r = self.run_ok("doctor", "--help")
        for option in ("--error", "--require", "--manifest", "--root", "--no-defaults", "--probe",
                       "--out-of-process", "--format", "NO_COLOR", "EXIT STATUS", "6  "):
            self.assertIn(option, r.stdout, r.describe())
        self.assertIn("doctor", self.run_ok("--help").stdout)
        # The help names every section, in order, and the schema version the
        # JSON has (it said 1 long after the schema became 2).
        text = " ".join(r.stdout.split())
        positions = [text.find(section) for section in DOCTOR_HELP_SECTIONS]
        self.assertNotIn(-1, positions, list(zip(DOCTOR_HELP_SECTIONS, positions)))
        self.assertEqual(positions, sorted(positions), text)
        version = self.parse_json(self.doctor("--no-defaults", "--format", "json"))["schema_version"]
        self.assertIn('"schema_version": %d' % version, text)

    def test_usage_errors(self):
        self.assert_usage_error(["doctor", "--require", "cudnn~8"], ["cudnn~8"])
        self.assert_usage_error(["doctor", "--root", ""], ["--root"])
        self.assert_usage_error(["doctor", "--format", "xml"], ["xml"])
        self.assert_usage_error(["doctor", "--bogus"], ["--bogus"])
        self.assert_usage_error(["doctor", "--manifest"], ["--manifest"])
        self.assert_usage_error(["doctor", "extra"], ["extra"])

    def test_error_message_from_the_command_line_and_standard_input(self):
        """--error TEXT and --error - (a pasted traceback): the Error
        message section says what it means and what it requires, the plan
        takes the requirement, and a library the message names that is here
        is a problem whose fix starts the program through cudaload."""
        tree = self.fixture(*self.cudnn8_tree())
        message = ("Traceback (most recent call last):\n  File \"app.py\", line 1\n"
                   "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your "
                   "library path!\n")
        base = ["--no-defaults", "--root", to_cli(tree)]
        r = self.doctor(*(["--verbose"] + base + ["--error", message]), rc=6)
        self.assertIn("\nError message\n  read          Could not locate cudnn_ops_infer64_8.dll. "
                      "Please make sure it is in your library path!\n", r.stdout, r.describe())
        self.assertIn("  requires      cudnn=8 (see Plan)\n", r.stdout)
        self.assertIn("  cudnn=8  ok", r.stdout)
        self.assertIn("1. the error message names cudnn_ops_infer64_8.dll, which is here (", r.stdout)
        self.assertIn("fix: cudaload exec --no-defaults --root ", r.stdout)
        self.assertLess(r.stdout.index("Error message"), r.stdout.index("Platform"))
        # A requirement named by a file or a sub-library, as scan prints it.
        for spec in ("cudnn_ops_infer=8", "libcudnn_ops_infer.so.8", "cudnn_ops_infer64_8.dll"):
            doc = self.parse_json(self.doctor(*(base + ["--require", spec, "--format", "json"])))
            self.assertEqual([q["spec"] for q in doc["requirements"]], ["cudnn=8"], spec)
            self.assertTrue(doc["requirements"][0]["satisfied"], spec)

    def test_error_message_from_standard_input(self):
        """--error - reads the traceback piped in."""
        if CLI_IS_WINDOWS:
            self.skipTest("scripts/wine-run gives the Windows tool /dev/null as standard input")
        tree = self.fixture(*self.cudnn8_tree())
        message = ("Traceback (most recent call last):\n  File \"app.py\", line 1\n"
                   "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your "
                   "library path!\n")
        base = ["--no-defaults", "--root", to_cli(tree)]
        proc = subprocess.run(CLI + ["doctor"] + base + ["--error", "-", "--format", "json"],
                              input=message.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT_S)
        piped = Result(["doctor", "--error", "-"], proc)
        self.assertEqual(piped.rc, 6, piped.describe())
        doc = self.parse_json(piped)
        check_doctor_schema(self, doc)
        self.assertEqual([m["requirement"] for m in doc["error_messages"]], ["cudnn=8"])
        self.assertEqual(doc["error_messages"][0]["kind"], "library-missing")

    def pipe_error(self, data, *extra):
        """doctor --no-defaults --error - --format json, data on standard
        input: (Result, its JSON document)."""
        proc = subprocess.run(CLI + ["doctor", "--no-defaults", "--error", "-", "--format", "json"]
                              + list(extra), input=data, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        piped = Result(["doctor", "--error", "-"], proc)
        self.assertIn(piped.rc, (0, 6), piped.describe())
        doc = self.parse_json(piped)
        check_doctor_schema(self, doc)
        return piped, doc

    def test_error_from_standard_input_in_any_encoding_and_shape(self):
        """--error - reads what a file or pipe holds (issue 43, item 5):
        PowerShell 5.1's UTF-16LE with BOM, UTF-16BE, a UTF-8 BOM, NUL bytes
        as separators, CR LF; the Windows tool reads its standard input as
        bytes (no CR LF or ^Z translation)."""
        if CLI_IS_WINDOWS:
            self.skipTest("scripts/wine-run gives the Windows tool /dev/null as standard input")
        log = ("step 1 loss 0.25\r\nTraceback (most recent call last):\r\n"
               "ImportError: libcufft.so.11: cannot open shared object file: No such file or "
               "directory\r\n")
        for data in (b"\xff\xfe" + log.encode("utf-16-le"), b"\xfe\xff" + log.encode("utf-16-be"),
                     b"\xef\xbb\xbf" + log.encode(), log.replace("\r\n", "\0").encode()):
            r, doc = self.pipe_error(data)
            self.assertEqual([m["file"] for m in doc["error_messages"]], ["libcufft.so.11"],
                             (data[:8], r.describe()))
            self.assertEqual(doc["error_messages"][0]["quote"],
                             "ImportError: libcufft.so.11: cannot open shared object file: No such "
                             "file or directory")

    def test_error_from_a_whole_log_reads_its_end(self):
        """A training log larger than the first 4 MiB --error - used to keep:
        its traceback at the end is read, and the tool says how much of the
        middle it left out."""
        if CLI_IS_WINDOWS:
            self.skipTest("scripts/wine-run gives the Windows tool /dev/null as standard input")
        line = b"epoch 1 step 100 loss 0.12345 lr 0.0001 grad_norm 1.5 throughput 1234.5\n"
        body = line * ((40 << 20) // len(line))
        data = (b"Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll "
                b"not found\n" + body + b"Traceback (most recent call last):\n"
                b"ImportError: /opt/my app/lib/libcudnn.so.9: cannot open shared object file\n")
        r, doc = self.pipe_error(data)
        self.assertEqual([m["file"] for m in doc["error_messages"]],
                         ["cudart64_110.dll", "/opt/my app/lib/libcudnn.so.9"], r.describe())
        self.assertIn("standard input held %d bytes" % len(data), r.stderr)
        facts = doc["error_messages"][1]["facts"]
        self.assertEqual(facts["file-form"]["value"], "absolute-path")
        self.assertEqual(facts["cause"]["value"], "path-not-found")

    def test_an_unknown_error_message_is_a_usage_error_naming_the_forms(self):
        self.assert_usage_error(["doctor", "--no-defaults", "--error", "Segmentation fault"],
                                ["no form cudaload knows", "cannot open shared object file",
                                 "Could not locate", "CUBLAS_STATUS_NOT_INITIALIZED"])
        self.assert_usage_error(["doctor", "--error", "x", "--error", "y"], ["--error given twice"])

    def test_json_schema_and_missing_requirement(self):
        tree = self.fixture(*self.cudnn8_tree())
        r = self.doctor("--no-defaults", "--root", to_cli(tree), "--require", "cudnn=8,cudnn=9",
                        "--format", "json", rc=6)
        doc = self.parse_json(r)
        check_doctor_schema(self, doc)
        reqs = {q["spec"]: q for q in doc["requirements"]}
        self.assertTrue(reqs["cudnn=8"]["satisfied"], doc["requirements"])
        self.assertTrue(same_file(reqs["cudnn=8"]["path"], tree / ("cudnn64_8.dll" if CLI_IS_WINDOWS else "libcudnn.so.8")))
        self.assertFalse(reqs["cudnn=9"]["satisfied"])
        missing = [p for p in doc["problems"] if p["problem"].startswith("cudnn=9: no usable cudnn library")]
        self.assertEqual(len(missing), 1, doc["problems"])
        self.assertIn("major 8, not 9", missing[0]["problem"])
        # Quoted for the platform's shells: sh's single quotes, or double
        # quotes for cmd and PowerShell alike.
        self.assertIn('pip install "nvidia-cudnn-cu12==9.*"' if CLI_IS_WINDOWS
                      else "pip install 'nvidia-cudnn-cu12==9.*'", missing[0]["fix_text"])
        self.assertIn("CUDNN_PATH", missing[0]["fix_text"])
        # No driver in the roots searched: a problem with its fix.
        self.assertIsNone(doc["driver"])
        self.assertTrue(any("install the NVIDIA driver" in p["fix_text"] for p in doc["problems"]), doc["problems"])

    def test_yaml_equals_json(self):
        self.require_yaml()
        try:
            import yaml  # PyYAML; scripts/test installs it
        except ImportError:
            self.skipTest("PyYAML is not installed; the YAML output is not checked")
        tree = self.fixture(*self.cudnn8_tree())
        args = ["--no-defaults", "--root", to_cli(tree), "--require", "cudnn=8,cublas"]
        j = self.doctor(*args, "--format", "json", rc=6)
        y = self.doctor(*args, "--format", "yaml", rc=6)
        doc = yaml.safe_load(y.stdout)
        check_doctor_schema(self, doc)
        self.assertEqual(doc, self.parse_json(j), y.describe())

    def test_clean_setup_exits_0(self):
        """A cuDNN 8 folder whose main library opens its sub-libraries by name
        from where the loader does not look: the doctor says what fails
        without cudaload and prints the exec line that fixes it; that line,
        followed exactly as printed (with the doctor itself as PROGRAM),
        gives a clean report."""
        self.skip_under_qemu("the fix runs the tool as exec's child, which qemu-user does not start as the target's")
        tree = self.fixture(*self.cudnn8_tree())
        # cuDNN 8 opens cuBLAS lazily: a clean setup plans it too.
        cublas = self.fixture(*(("preload", "windows", "cublas12") if CLI_IS_WINDOWS
                                else ("preload", "cublas12")))
        driver = self.driver_root()
        args = ["--no-defaults", "--root", to_cli(tree), "--root", to_cli(cublas),
                "--root", to_cli(driver), "--require", "cudnn=8,cublas=12"]
        doc = self.parse_json(self.doctor(*(args + ["--format", "json"]), rc=6))
        as_is = [p for p in doc["problems"]
                 if p["problem"].startswith("without cudaload (this environment as it is)")]
        self.assertTrue(as_is, doc["problems"])
        self.assertEqual(len(as_is), len(doc["problems"]), doc["problems"])
        self.assertEqual({p["fix_text"] for p in as_is}, {as_is[0]["fix_text"]}, as_is)
        printed = run_program_words(self, as_is[0])
        tool = to_cli(CLI[-1])
        proc = subprocess.run(CLI + printed + ["--", tool, "doctor"] + args,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        r = Result(printed + ["--", "cudaload", "doctor"] + args, proc)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertTrue(r.stdout.split("\n")[0].endswith("; no problem"), r.describe())
        # exec says nothing but what it changes for the program: a CUDA
        # variable of this machine naming a toolkit of another CUDA major
        # (issue 41, item 6).
        said = [line for line in r.stderr.splitlines()
                if not re.match(r"cudaload: exec: warning: (CUDA_PATH|CUDA_HOME|CUDNN_PATH)=.* "
                                r"the started program goes without \1, ", line)]
        self.assertEqual(said, [], r.describe())
        doc = self.parse_json(self.doctor(*(args + ["--format", "json"])))
        self.assertEqual(doc["driver"]["source"], "scan")
        self.assertTrue(same_file(doc["driver"]["path"], driver / ("nvcuda.dll" if CLI_IS_WINDOWS else "libcuda.so.580.65.06")))

    def test_cudnn_without_cublas_is_a_problem_with_a_fix(self):
        tree = self.fixture(*self.cudnn8_tree())
        doc = self.parse_json(self.doctor("--no-defaults", "--root", to_cli(tree), "--require",
                                          "cudnn=8", "--format", "json", rc=6))
        texts = [p["problem"] + " " + p["fix_text"] for p in doc["problems"]]
        self.assertTrue(any("cublas" in t.lower() and "--require cublas" in t for t in texts), texts)
        # Each problem once, though every preloaded sub-library makes the open.
        self.assertEqual(len(texts), len(set(texts)), texts)

    def short_form_lines(self, text):
        """The short form's lines, checked for what every short form holds:
        the verdict first, requirement lines next, the problems (commands
        alone on their lines) last, then the one line that says how to see
        the rest."""
        lines = text.rstrip("\n").split("\n")
        self.assertNotIn("Platform", lines, text)
        self.assertEqual(lines[-1], "the whole report: cudaload doctor --verbose", text)
        return lines

    def test_the_answer_comes_first_on_one_screen(self):
        """Issue 46: a healthy environment's answer is its first line and one
        line per requirement, on one screen of 80 columns."""
        driver = self.driver_root()
        wheels = self.fixture(*(("windows", "site-packages") if CLI_IS_WINDOWS
                                else ("wheels-cu12", "site-packages")))
        # What each fixture's wheels hold. On Windows nothing finds a
        # wheel's DLL by name but PATH (docs/loader.md, Windows 14): the
        # environment is healthy as it is once the folders are on it, as the
        # doctor's own fix says.
        specs = "cudart=12,cublas=12,cudnn=9,nvrtc=12" if CLI_IS_WINDOWS else \
            "cudart=12,cublas=12,cudnn=8,cufft=11,nvrtc=12"
        env = search_path_env([to_cli(wheels / "nvidia" / package / "bin")
                               for package in ("cuda_runtime", "cublas", "cudnn", "cuda_nvrtc")]) \
            if CLI_IS_WINDOWS else None
        r = self.doctor("--no-defaults", "--root", to_cli(wheels), "--root", to_cli(driver),
                        "--require", specs, rc=0, env=env)
        lines = self.short_form_lines(r.stdout)
        self.assertLessEqual(len(lines), 25, r.stdout)
        self.assertTrue(all(len(line) <= 80 for line in lines), r.stdout)
        self.assertRegex(lines[0], r"^%d requirements \(CUDA 12\): all %d found in the roots given; "
                                   r"no problem$" % (specs.count(",") + 1, specs.count(",") + 1))
        self.assertEqual(lines[1], "")
        rows = lines[2:2 + specs.count(",") + 1]
        self.assertEqual([row.split()[:2] for row in rows], [["ok", spec] for spec in specs.split(",")])
        self.assertTrue(all(row.split()[-1] == "root" for row in rows), rows)
        self.assertNotIn("Problems and fixes", r.stdout)
        # --verbose: every section, as before.
        full = self.doctor("--verbose", "--no-defaults", "--root", to_cli(wheels), "--root",
                           to_cli(driver), "--require", specs, rc=0, env=env).stdout.split("\n")
        self.assertEqual([s for s in DOCTOR_SECTIONS if s in full], list(DOCTOR_SECTIONS))

    def test_a_failure_shows_its_cause_and_fix_first(self):
        """Issue 46: the first line names the first problem; a missing
        requirement is a FAIL line; the problems and their fixes follow,
        each command alone on its line."""
        tree = self.fixture(*self.cudnn8_tree())
        r = self.doctor("--no-defaults", "--root", to_cli(tree), "--require", "cudnn=8,cudnn=9", rc=6)
        lines = self.short_form_lines(r.stdout)
        self.assertRegex(lines[0], r"^cudnn=8, cudnn=9: 1 of 2 found; \d problems?: "
                                   r"cudnn=9: no usable cudnn library$")
        self.assertEqual(lines[2].split()[:2], ["ok", "cudnn=8"])
        self.assertEqual(lines[3].split(), ["FAIL", "cudnn=9", "missing"])
        problems = lines.index("Problems and fixes")
        self.assertGreater(problems, 3)
        self.assertTrue(lines[problems + 1].startswith("  1. cudnn=9: no usable cudnn library"), r.stdout)
        # pip as the platform runs it (Windows: "py -m pip" or "python -m
        # pip", a requirement with a wildcard in double quotes).
        pip = r"((py|python) -m )?pip install "
        commands = [l.strip() for l in lines[problems:] if re.match(r"^ +(fix: )?" + pip, l)]
        self.assertTrue(commands, r.stdout)
        for command in commands:
            command = command[len("fix: "):] if command.startswith("fix: ") else command
            self.assertRegex(command, "^" + pip + r'("[^"\s]+"|[^"\s]+)$', "a command alone: " + r.stdout)
        # Prose fits 80 columns; a longer line is a command, pasted whole
        # (one standing alone, or one a note quotes), or one word (a path).
        for line in lines:
            words = re.sub(r"^(fix: |\d+\. )", "", line.strip())
            if len(line) > 80 and " " in words:
                self.assertRegex(words, r"^(((py|python|cudaload|eval|export|set|\$env:\w+)\b)"
                                        r"|cudaload\.setup\(|\S*pip install )", r.stdout)
        # The records say the same, whatever the text's form.
        doc = self.parse_json(self.doctor("--no-defaults", "--root", to_cli(tree), "--require",
                                          "cudnn=8,cudnn=9", "--format", "json", rc=6))
        self.assertEqual(doc, self.parse_json(self.doctor("--verbose", "--no-defaults", "--root",
                                                          to_cli(tree), "--require", "cudnn=8,cudnn=9",
                                                          "--format", "json", rc=6)))
        self.assertEqual(doc["problems"][0]["kind"], "unsatisfied")

    def test_text_sections_aligned_and_without_colour_in_a_pipe(self):
        tree = self.fixture(*self.cudnn8_tree())
        r = self.doctor("--verbose", "--no-defaults", "--root", to_cli(tree), "--require",
                        "cudnn=8,cudnn=9", rc=6)
        self.assertNotIn("\x1b[", r.stdout, "colour codes in a pipe")
        lines = r.stdout.split("\n")
        positions = [lines.index(s) for s in DOCTOR_SECTIONS]
        self.assertEqual(positions, sorted(positions), "sections out of order:\n" + r.stdout)
        # Key-value sections line up their values.
        platform = lines[positions[0] + 1: positions[0] + 4]
        starts = {len(l) - len(l[2:].split("  ", 1)[1].lstrip()) for l in platform}
        self.assertEqual(len(starts), 1, platform)
        # Each problem is a numbered line followed by its fix.
        problems = lines[positions[-1] + 1:]
        self.assertRegex(problems[0], r"^  1\. cudnn=9: no usable cudnn library")
        self.assertRegex(problems[1], r"^     fix: ")
        # Its commands alone on their lines, under it (a compat folder does
        # not say which CUDA major the program is built for: one per major).
        self.assertTrue(any(re.match(r"^          ((py|python) -m )?pip install \S+$", line)
                            for line in problems[2:8]), problems[:8])

    @unittest.skipIf(os.name == "nt", "pseudo-terminals are POSIX")
    def test_colour_on_a_terminal_unless_NO_COLOR(self):
        if CLI_IS_WINDOWS:
            self.skipTest("checked against a Linux build (Wine has no pty console)")
        import pty

        def on_tty(extra_env, without=(), short=False):
            env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
            env["TERM"] = "xterm-256color"
            env.update(extra_env)
            for name in without:
                env.pop(name, None)
            master, slave = pty.openpty()
            try:
                args = ["--no-defaults", "--require", "cudnn=99"] if short else ["--verbose", "--no-defaults"]
                proc = subprocess.Popen(CLI + ["doctor"] + args, stdout=slave,
                                        stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
                os.close(slave)
                out = b""
                while True:
                    try:
                        chunk = os.read(master, 65536)
                    except OSError:  # EIO: the child closed the terminal
                        break
                    if not chunk:
                        break
                    out += chunk
                proc.wait(timeout=TIMEOUT_S)
                return out.decode("utf-8", "replace")
            finally:
                os.close(master)

        self.assertIn("\x1b[1mPlatform\x1b[0m", on_tty({}))
        # The short form's marks: where the terminal shows UTF-8, else words.
        self.assertIn("\u2717", on_tty({"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}, short=True))
        self.assertNotIn("\u2717", on_tty({"LANG": "C", "LC_ALL": "C"}, short=True))
        self.assertIn("FAIL", on_tty({"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "NO_COLOR": "1"},
                                     short=True))
        self.assertIn("\x1b[", on_tty({"NO_COLOR": ""}), "an empty NO_COLOR does not turn colour off")
        plain = on_tty({"NO_COLOR": "1"})
        self.assertNotIn("\x1b[", plain)
        self.assertIn("Problems and fixes", plain)
        # A terminal that shows no colour (Emacs' shell), or that says
        # nothing of itself, gets none (issue 33, item 15).
        for extra, without, what in (({"TERM": "dumb"}, (), "TERM=dumb"),
                                     ({}, ("TERM",), "without TERM"),
                                     ({"TERM": ""}, (), "an empty TERM")):
            plain = on_tty(extra, without)
            self.assertNotIn("\x1b[", plain, what)
            self.assertIn("Problems and fixes", plain, what)

    def test_manifest_requirements_roots_and_policy(self):
        self.require_yaml()
        tree = self.fixture(*self.cudnn8_tree())
        app = self.tmpdir()
        # A relative root: resolved against the manifest's folder, wherever the
        # doctor is started from.
        if CLI_IS_WINDOWS:
            shutil.copytree(tree, app / "cudnn")
        else:
            os.symlink(tree, app / "cudnn")
        (app / "cudaload.yaml").write_text(
            "requirements:\n  - cudnn=8\nroots: [cudnn]\npolicy:\n  sublibraries: all\nprobe: false\n")
        r = self.doctor("--no-defaults", "--manifest", to_cli(app / "cudaload.yaml"), "--format", "json")
        self.assertIn(r.rc, (0, 6), r.describe())
        doc = self.parse_json(r)
        check_doctor_schema(self, doc)
        self.assertEqual(doc["manifest"]["sublibraries"], "all")
        self.assertIs(doc["manifest"]["probe"], False)
        self.assertTrue(same_file(doc["manifest"]["path"], app / "cudaload.yaml"))
        self.assertTrue(same_file(doc["roots"][0]["path"], app / "cudnn"), doc["roots"])
        self.assertEqual([q["spec"] for q in doc["requirements"]], ["cudnn=8"])
        self.assertTrue(doc["requirements"][0]["satisfied"], doc)
        # sublibraries: all preloads every sub-library.
        self.assertNotIn("not-needed", [p["state"] for p in doc["plan"]])

    def test_manifest_probe_turns_the_probe_on(self):
        self.require_yaml()
        app = self.tmpdir()
        (app / "cudaload.yaml").write_text("probe: true\n")
        r = self.doctor("--no-defaults", "--manifest", to_cli(app / "cudaload.yaml"), "--format", "json")
        doc = self.parse_json(r)
        self.assertIsNotNone(doc["probe"], r.describe())
        check_doctor_schema(self, doc)

    def test_probe_option(self):
        r = self.doctor("--no-defaults", "--out-of-process", "--format", "json")
        doc = self.parse_json(r)
        check_doctor_schema(self, doc)
        self.assertIsNotNone(doc["probe"])
        self.assertEqual(r.rc, 0 if doc["probe"]["verdict"] == "GPU_OK" and not doc["problems"] else 6)

    def test_bad_manifest_exits_3_and_says_where(self):
        self.require_yaml()
        d = self.tmpdir()
        cases = {
            "syntax.yaml": ("requirements: [cudnn=8\nprobe: true\n", ["line 2, column", "YAML syntax error"]),
            "key.yaml": ("requirements: [cudnn=8]\nprobez: true\n", ["line 2, column 1", 'unknown key "probez"']),
            "type.yaml": ("roots: 5\n", ["line 1", "roots: expected a sequence"]),
            "spec.yaml": ("requirements:\n  - cudnn~8\n", ["line 2", 'requirement "cudnn~8"']),
        }
        for name, (text, needles) in cases.items():
            (d / name).write_text(text)
            r = self.doctor("--no-defaults", "--manifest", to_cli(d / name), rc=3)
            self.assertEqual(r.stdout, "", r.describe())
            self.assertIn(name, r.stderr, r.describe())
            for needle in needles:
                self.assertIn(needle, r.stderr, r.describe())
        r = self.doctor("--manifest", to_cli(d / "missing.yaml"), rc=3)
        self.assertIn("missing.yaml", r.stderr)
        r = self.doctor("--manifest", to_cli(d), rc=3)
        self.assertIn("not a regular file", r.stderr)

    @unittest.skipIf(os.name == "nt", "FIFOs are POSIX")
    def test_fifo_manifest_does_not_block(self):
        self.require_yaml()
        if CLI_IS_WINDOWS:
            self.skipTest("Wine maps no FIFOs")
        fifo = self.tmpdir() / "cudaload.yaml"
        os.mkfifo(fifo)
        r = self.doctor("--manifest", to_cli(fifo), rc=3)
        self.assertIn("not a regular file", r.stderr)

    def test_manifest_limits_and_pseudo_files(self):
        # Issue 12, item 11 and "minor": inputs that took seconds to minutes
        # to parse are refused at a named limit, with the line and column; a
        # /proc file (size 0, content) is not read as an empty manifest.
        self.require_yaml()
        d = self.tmpdir()
        cases = {
            "nested.yaml": ("requirements: " + "[" * 100000 + "\n",
                            ["line 1, column 78", "nesting deeper than 64 levels"]),
            "brackets.yaml": ("[" * (1 << 20), ["line 1, column 65", "nesting deeper than 64 levels"]),
            "anchors.yaml": ("requirements: [" + "&a cudnn=8, " * 60000 + "cudnn=9]\n",
                             ["line 1, column 16", 'anchor "&a"', "not allowed"]),
            "tags.yaml": ("%TAG !t! tag:x:\n" * 60000 + "---\nprobe: true\n",
                          ["line 17, column 1", "more than 16 directives"]),
            "key.yaml": ("[a, b]: 1\n", ["line 1, column 1: a key must be a name"]),
        }
        for name, (text, needles) in cases.items():
            (d / name).write_text(text)
            r = self.doctor("--no-defaults", "--manifest", to_cli(d / name), rc=3)
            self.assertEqual(r.stdout, "", r.describe())
            for needle in needles:
                self.assertIn(needle, r.stderr, r.describe())
        (d / "zeros.yaml").write_text("schema_version: 00001\nprobe: false\n")
        r = self.doctor("--no-defaults", "--manifest", to_cli(d / "zeros.yaml"), "--format", "json")
        self.assertIsNotNone(self.parse_json(r)["manifest"], r.describe())
        if not CLI_IS_WINDOWS and os.path.exists("/proc/self/status"):
            r = self.doctor("--no-defaults", "--manifest", "/proc/self/status", rc=3)
            self.assertIn("not a regular file", r.stderr, r.describe())

    def test_relative_root_gives_the_absolute_report(self):
        tree = self.fixture(*self.cudnn8_tree())
        here = Path(os.path.realpath(str(tree.parent)))
        args = ["doctor", "--no-defaults", "--require", "cudnn=8", "--format", "json"]
        # From the same folder: on Windows the current folder is one of the
        # places the loader searches, and the report names what it looked at.
        expected = self.doctor(*(args[1:] + ["--root", to_cli(here / tree.name)]), rc=6,
                               cwd=str(here))
        doc = self.parse_json(expected)
        self.assertEqual(doc["roots"][0]["path"], to_cli(here / tree.name))
        self.assertTrue(doc["requirements"][0]["satisfied"], doc)
        r = run_cli(*(args + ["--root", tree.name]), cwd=str(here))
        self.assertEqual(r.rc, 6, r.describe())
        self.assertEqual(self.parse_json(r), doc)
        r = run_cli(*(args + ["--root", "no-such-root"]), cwd=str(here))
        problems = [p["problem"] for p in self.parse_json(r)["problems"]]
        self.assertIn("root %s: not found" % to_cli(here / "no-such-root"), problems, r.describe())

    def test_relative_manifest(self):
        self.require_yaml()
        tree = self.fixture(*self.cudnn8_tree())
        here = Path(os.path.realpath(str(self.tmpdir())))
        (here / "app").mkdir()
        (here / "app" / "cudaload.yaml").write_text("requirements: [cudnn=8]\nroots: [%s]\n"
                                                    % json.dumps(to_cli(tree)))
        args = ["doctor", "--no-defaults", "--format", "json", "--manifest"]
        expected = self.doctor(*(args[1:] + [to_cli(here / "app" / "cudaload.yaml")]), rc=6,
                               cwd=str(here))
        doc = self.parse_json(expected)
        self.assertEqual(doc["manifest"]["path"], to_cli(here / "app" / "cudaload.yaml"))
        for spelling in ("app/cudaload.yaml", "./app/../app/cudaload.yaml"):
            r = run_cli(*(args + [spelling]), cwd=str(here))
            self.assertEqual(r.rc, 6, r.describe())
            self.assertEqual(self.parse_json(r), doc, "--manifest %s from %s" % (spelling, here))
        r = run_cli(*(args + ["app/missing.yaml"]), cwd=str(here))
        self.assertEqual(r.rc, 3, r.describe())
        self.assertIn(to_cli(here / "app" / "missing.yaml"), r.stderr, r.describe())


class FixesAsPrinted(CliTestCase):
    """Issue 27, item 3: each fix line the doctor prints for a problem it
    can set up here is followed exactly as printed, and the doctor run
    again: the problem is gone. (The driver's, nvidia-smi's and the display
    server's fixes need hardware; a pip line needs the index: the
    acceptance tier follows those.)"""

    def problems(self, args, env=None):
        proc = subprocess.run(CLI + ["doctor", "--format", "json"] + list(args),
                              env=dict(os.environ, **(env or {})) if env is not None else None,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        r = Result(["doctor"] + list(args), proc)
        self.assertIn(r.rc, (0, 6), r.describe())
        return self.parse_json(r)["problems"]

    def fix_of(self, problems, start):
        found = [p for p in problems if p["problem"].startswith(start)]
        self.assertEqual(len(found), 1, [p["problem"] for p in problems])
        return found[0]["fix_text"]

    def cudnn8_folder(self):
        return self.fixture(*(("preload", "windows", "cudnn8") if CLI_IS_WINDOWS
                              else ("cudnn8_compat",)))

    def test_a_missing_library_without_the_default_roots_takes_a_root(self):
        """With --no-defaults CUDNN_PATH is not read, so the fix says to pass
        the folder as a root: done, the requirement is satisfied."""
        fix = self.fix_of(self.problems(["--no-defaults", "--require", "cudnn=8"]), "cudnn=8:")
        self.assertIn("or pass the folder that holds the %s as a root (--root"
                      % ("DLLs" if CLI_IS_WINDOWS else "libraries"), fix)
        after = self.problems(["--no-defaults", "--require", "cudnn=8",
                               "--root", to_cli(self.cudnn8_folder())])
        self.assertFalse([p for p in after if p["problem"].startswith("cudnn=8:")], after)

    def test_a_missing_library_with_the_default_roots_takes_the_variable(self):
        if CLI_IS_WINDOWS:
            self.skipTest("the default roots of this Linux machine")
        env = {k: v for k, v in os.environ.items() if k not in ("CUDNN_PATH", "VIRTUAL_ENV", "CONDA_PREFIX")}
        fix = self.fix_of(self.problems(["--require", "cudnn=8"], env=env), "cudnn=8:")
        self.assertIn("or set CUDNN_PATH to the folder that holds the libraries", fix)
        env["CUDNN_PATH"] = to_cli(self.cudnn8_folder())
        after = self.problems(["--require", "cudnn=8"], env=env)
        self.assertFalse([p for p in after if p["problem"].startswith("cudnn=8:")], after)

    def test_a_stray_sub_library_is_deleted_as_printed(self):
        d = self.tmpdir()
        name = "cudnn_ops_infer64_8.dll" if CLI_IS_WINDOWS else "libcudnn_ops_infer.so.8"
        shutil.copy(str(self.cudnn8_folder() / name), str(d / name))
        fix = self.fix_of(self.problems(["--no-defaults", "--root", to_cli(d)]),
                          "cudnn 8 found only as sub-library")
        self.assertTrue(fix.endswith(", or delete the stray %s" % name), fix)
        (d / name).unlink()
        after = self.problems(["--no-defaults", "--root", to_cli(d)])
        self.assertFalse([p for p in after if "found only as sub-library" in p["problem"]], after)

    def test_a_file_given_as_a_root_takes_its_folder_as_printed(self):
        """Issue 29, item 7: a file is no root. The fix said to make it
        readable, which changes nothing; it names the folder that holds the
        file: given, the problem is gone and the library is found."""
        name = "cudnn64_8.dll" if CLI_IS_WINDOWS else "libcudnn.so.8"
        folder = self.cudnn8_folder()
        args = ["--no-defaults", "--require", "cudnn=8"]
        fix = self.fix_of(self.problems(args + ["--root", to_cli(folder / name)]),
                          "root %s: not a folder" % to_cli(folder / name))
        self.assertIn('--root "%s"' % to_cli(folder), fix)
        self.assertNotIn("readable", fix)
        after = self.problems(args + ["--root", to_cli(folder)])
        self.assertFalse([p for p in after if p["problem"].startswith(("root ", "cudnn=8:"))], after)

    def test_cuda_variables_are_unset_as_printed(self):
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="-1", CUDA_LAUNCH_BLOCKING="1")
        problems = self.problems(["--no-defaults"], env=env)
        for variable, start in (("CUDA_VISIBLE_DEVICES", 'CUDA_VISIBLE_DEVICES="-1" hides every device'),
                                ("CUDA_LAUNCH_BLOCKING", "CUDA_LAUNCH_BLOCKING=1")):
            # The shell's own spelling: POSIX unset, cmd's set "NAME=".
            unset = 'set "%s="' % variable if CLI_IS_WINDOWS else "unset %s" % variable
            self.assertTrue(self.fix_of(problems, start).startswith(unset), problems)
            del env[variable]
        after = self.problems(["--no-defaults"], env=env)
        self.assertFalse([p for p in after if "CUDA_" in p["problem"]], after)

    def test_a_lazily_opened_library_takes_the_root_printed(self):
        """cuDNN 8 opens cuBLAS 12 by name; the fix names the folder that
        holds it with --root: given, the warning is gone."""
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux lazy names of the cuDNN 8 fixture")
        cudnn8 = to_cli(self.cudnn8_folder())
        args = ["--no-defaults", "--root", cudnn8, "--require", "cudnn=8"]
        problems = [p for p in self.problems(args) if "opens libcublas.so.12 " in p["problem"] and
                    "by name when it first needs" in p["problem"]]
        self.assertEqual(len(problems), 1, problems)
        self.assertRegex(problems[0]["fix_text"], r"or the folder that holds libcublas\.so\.12( and \S+)? with --root")
        cublas12 = to_cli(self.fixture("preload", "cublas12"))
        after = self.problems(args + ["--root", cublas12])
        self.assertFalse([p for p in after if "libcublas.so.12" in p["problem"]], after)

    def test_a_known_consumers_library_is_required_as_printed(self):
        """ctranslate2 4.4.0 opens cuBLAS 12 by name beside a plan of cuBLAS
        13: the fix says to add --require cublas=12 with a root that holds
        it. Done so, both majors are satisfied and the problem is gone."""
        tree = ("consumers", "windows") if CLI_IS_WINDOWS else ("consumers",)
        site = to_cli(self.fixture(*tree, "site-packages"))
        args = ["--no-defaults", "--root", site]
        fix = self.fix_of(self.problems(args + ["--require", "cublas=13"]), "ctranslate2 4.4.0 (")
        self.assertTrue(fix.startswith("add --require cublas=12 with a root that holds it"), fix)
        requirement = re.search(r"--require (\S+)", fix).group(1)
        after = self.problems(args + ["--require", "cublas=13," + requirement,
                                      "--root", to_cli(self.fixture(*tree, "cublas12"))])
        self.assertFalse([p for p in after if p["problem"].startswith(("ctranslate2", "cublas"))], after)

    def test_a_needed_library_no_root_holds_takes_the_root_printed(self):
        """cuSOLVER 12 alone needs cuBLAS 13 and cuSPARSE 12 (ELF NEEDED):
        each fix says to add a root that holds the family and major it
        names; with those roots the problems are gone."""
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux cuSOLVER wheel tree (ELF NEEDED)")
        # The fixtures hold no CUDA 13 cuSPARSE 12 (the one a CUDA 13
        # cuSOLVER takes): the check needs this machine's, a CUDA 13 toolkit
        # in ld.so.cache, as CI's machines have.
        # What the cache names counts only where the file is there: a cache
        # made before a toolkit was removed (or hidden, the bare tier) still
        # lists its files.
        ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
        cache = subprocess.run([ldconfig, "-p"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               universal_newlines=True).stdout if os.path.exists(ldconfig) else ""
        cusparse = [line.split(" => ", 1)[1].strip() for line in cache.splitlines()
                    if line.strip().startswith("libcusparse.so.12 ") and " => " in line]
        if not any(os.path.isfile(path) for path in cusparse) or len(CLI) > 1:
            self.skipTest("no CUDA 13 cuSPARSE 12 in this machine's ld.so.cache (a CUDA 13 "
                          "toolkit), and none in the fixtures")
        args = ["--no-defaults", "--require", "cusolver=12",
                "--root", to_cli(self.fixture("preload", "cusolver_alone", "nvidia", "cusolver", "lib"))]
        holders = {"cublas=13": self.fixture("wheels-cu13", "site-packages", "nvidia", "cu13", "lib"),
                   "cusparse=12": self.fixture("preload", "wheels", "nvidia", "cusparse", "lib")}
        needs = [p for p in self.problems(args) if " needs lib" in p["problem"]]
        # cuBLAS 13 and cuSPARSE 12; where this machine's ld.so.cache holds
        # no cuBLASLt 13 (no toolkit) its own line too.
        self.assertIn(len(needs), (2, 3), needs)
        for problem in needs:
            # The plan's sentence where the loader would find the file
            # elsewhere (a toolkit in ld.so.cache), the loader model's
            # where it would find none.
            held = re.match(r"add --require (\w+=\d+) with a root that holds it", problem["fix_text"]) \
                or re.match(r"add a root that holds (\S+ \d+); the wheel that ships it: pip install nvidia-",
                            problem["fix_text"])
            self.assertTrue(held, problem)
            key = held.group(1).lower().replace(" ", "=")
            root = ["--root", to_cli(holders[key])]
            if root[1] not in args:
                args += root
            # As printed: the loader model's fix adds the requirement too.
            if held.re.pattern.startswith("add --require") and key not in args:
                args += ["--require", key]
        after = self.problems(args)
        self.assertFalse([p for p in after if "libcusolver.so.12 needs" in p["problem"]], after)

    def test_a_writable_root_is_made_private_as_printed(self):
        if CLI_IS_WINDOWS:
            self.skipTest("POSIX modes (the Windows icacls line: test_hostile_fs under Wine)")
        d = self.tmpdir()
        shutil.copytree(str(self.cudnn8_folder()), str(d / "cudnn8"))
        root = d / "cudnn8"
        root.chmod(0o777)
        fix = self.fix_of(self.problems(["--no-defaults", "--root", to_cli(root)]), "root %s refused" % root)
        self.assertTrue(fix.startswith("chmod go-w '%s', or, accepting" % root), fix)
        subprocess.run(fix[:fix.index(", or, accepting")], shell=True, check=True)
        after = self.problems(["--no-defaults", "--root", to_cli(root)])
        self.assertFalse([p for p in after if "refused" in p["problem"]], after)


class WindowsPython(CliTestCase):
    """Issue 45: the doctor and explain judge a Python program on Windows as
    it will run without cudaload (docs/loader.md, Windows 14 and 15):
    ctranslate2 in the embeddable CPython (tests/fixtures, windows_python/),
    its extension module imported as CPython imports it, what its files
    open by name searched as LoadLibrary searches (PATH). Windows only: the
    doctor models the host's loader."""

    AS_IS = "without cudaload (this environment as it is): "

    def setUp(self):
        if not CLI_IS_WINDOWS:
            self.skipTest("the doctor models the host's loader: the Windows tool, under Wine")

    def site(self, home):
        return self.fixture("windows_python", home, "Lib", "site-packages")

    def doctor(self, args, env=None):
        r = run_in(["doctor", "--format", "json", "--no-defaults"] + list(args),
                   env or utf8_env())
        self.assertIn(r.rc, (0, 6), r.describe())
        return self.parse_json(r)

    def as_is(self, doc):
        return [p for p in doc["problems"] if p["problem"].startswith(self.AS_IS)]

    def environment(self, home, require):
        return ["--environment", to_cli(self.site(home)), "--require", require]

    def test_the_failures_to_come_and_no_other(self):
        """ctranslate2 4.4.0 with its cuDNN 8 and cuBLAS 12 wheels: import
        ctranslate2 works (its DLLs come from its own folder), then its
        LoadLibraryA("cublas64_12.dll") and its bundled cuDNN shim's
        cudnn_ops_infer64_8.dll fail, searched on PATH. Exactly those, each
        with setup() before the import and the PATH line; never "needs
        libiomp5md.dll" nor a cuBLAS opened by its path."""
        doc = self.doctor(self.environment("py312", "cudnn=8,cublas=12"))
        problems = self.as_is(doc)
        texts = [p["problem"][len(self.AS_IS):] for p in problems]
        self.assertEqual(len(texts), 2, texts)
        self.assertTrue(any(re.search(r"ctranslate2\\ctranslate2\.dll opens cublas64_12\.dll by name", t)
                            for t in texts), texts)
        self.assertTrue(any(re.search(r"ctranslate2\\cudnn64_8\.dll opens cudnn_ops_infer64_8\.dll", t)
                            for t in texts), texts)
        for p in problems:
            self.assertEqual(p["kind"], "lazy-not-found", p)
        for text in texts:
            self.assertNotRegex(text, r"needs (?!(it|them):)\S+: not found|which the loader does not find")
            self.assertIn("path-variable", text)
        for p in problems:
            # setup() and the PATH line are words of the fix (fix_text, one
            # line); running the program through cudaload is its last step.
            self.assertIn('cudaload.setup(require=["cudnn=8", "cublas=12"]) before import ctranslate2',
                          p["fix_text"])
            self.assertIn('set "PATH=', p["fix_text"])
            self.assertNotIn("add_dll_directory(",
                             p["fix_text"].replace("os.add_dll_directory does not", ""))
            run = p["fix"][-1]
            self.assertEqual(run["action"], "run-program", p["fix"])
            self.assertEqual(run["argv"][:2], ["cudaload", "exec"], run)
            self.assertEqual(run["argv"][-2:], ["--", "PROGRAM"], run)
            self.assertIn("cudnn=8,cublas=12", run["argv"], run)

    def test_the_path_line_followed_as_printed_clears_them(self):
        """The cmd line of the fix, followed: the folders it names first on
        PATH, and the doctor run again says nothing fails as it is."""
        doc = self.doctor(self.environment("py312", "cudnn=8,cublas=12"))
        fix = self.as_is(doc)[0]["fix_text"]
        m = re.search(r'set "PATH=(.*?)%PATH%"', fix)
        self.assertTrue(m, fix)
        folders = [f for f in m.group(1).split(";") if f]
        self.assertTrue(folders, fix)
        after = self.doctor(self.environment("py312", "cudnn=8,cublas=12"),
                            env=search_path_env(folders))
        self.assertEqual(self.as_is(after), [], after["problems"])

    def test_explain_of_the_program_lists_the_same_failures(self):
        """explain of ctranslate2.dll (and of the module Python imports)
        follows what its cuDNN opens by name and lists its own LoadLibraryA
        of cuBLAS: the doctor's two failures (issue 45, item 2)."""
        doc = self.doctor(self.environment("py312", "cudnn=8,cublas=12"))
        said = set()
        for p in self.as_is(doc):
            m = re.search(r"opens (.+?) by name", p["problem"])
            self.assertTrue(m, p["problem"])
            said.update(re.split(r", | and ", m.group(1)))
        site = self.site("py312")
        for rel in ("ctranslate2.dll", "_ext.cp312-win_amd64.pyd"):
            r = run_in(["explain", to_cli(site / "ctranslate2" / rel), "--no-defaults",
                        "--root", to_cli(site), "--format", "json"], utf8_env())
            self.assertIn(r.rc, (0, 6), r.describe())
            listed = set()
            for problem in self.parse_json(r)["problems"]:
                text = problem["problem"] if isinstance(problem, dict) else problem
                m = re.search(r"opens (.+?) by name when it first needs", text)
                if m:
                    listed.update(re.split(r", | and ", m.group(1)))
            self.assertEqual(listed, said, rel)

    def test_an_embeddable_interpreters_pth_is_its_import_path(self):
        """--for python.exe of the embeddable distribution (issue 45, item
        3): its python312._pth lists "packages" and keeps "#import site" as
        shipped, so that folder is searched and Lib\\site-packages is not."""
        home = self.fixture("windows_python", "embedded")
        doc = self.doctor(["--for", to_cli(home / "python.exe")])
        roots = [r["path"] for r in doc["roots"]]
        self.assertIn(to_cli(home / "packages"), roots, roots)
        self.assertNotIn(to_cli(home / "Lib" / "site-packages"), roots, roots)

    def test_two_copies_of_one_name_say_which_the_program_gets(self):
        """ctranslate2 4.8.5's __init__ loads its bundled cudnn64_9.dll
        (9.10.2.21) by full path after cudaload loaded the wheel's
        (9.28.0.42): a note naming both, which one a load by name gets (the
        first, docs/loader.md, Windows 15), and that it is no problem."""
        doc = self.doctor(["--for", to_cli(self.site("py313")), "--require", "cudnn=9"])
        notes = [n["note"] for n in doc["notes"] if "two copies of cudnn64_9.dll" in n["note"]]
        self.assertEqual(len(notes), 1, doc["notes"])
        self.assertIn("(9.28.0.42), loaded first", notes[0])
        self.assertIn("(9.10.2.21), loaded by its full path", notes[0])
        self.assertIn("not a problem", notes[0])
        self.assertFalse([p for p in doc["problems"] if "in two versions" in p["problem"]],
                         doc["problems"])


class WindowsPythonPrograms(CliTestCase):
    """Issue 45, item 3: --for an embeddable CPython's python.exe (its ._pth
    is its import path) holding onnxruntime-gpu 1.26.0, and --for a venv's
    Scripts\\python.exe holding torch 2.7.1+cu126 (tests/fixtures,
    windows_python/ort312 and torchvenv, laid out as their win_amd64
    wheels): the needs come from the program's PE imports and pins, and the
    doctor says which copy of a library the program will use. Windows
    only: the doctor models the host's loader."""

    AS_IS = "without cudaload (this environment as it is): "

    def setUp(self):
        if not CLI_IS_WINDOWS:
            self.skipTest("the doctor models the host's loader: the Windows tool, under Wine")

    def doctor(self, *parts):
        python = self.fixture("windows_python", *parts)
        r = run_in(["doctor", "--format", "json", "--no-defaults", "--for", to_cli(python)],
                   utf8_env())
        self.assertIn(r.rc, (0, 6), r.describe())
        return self.parse_json(r)

    def test_onnxruntime_needs_come_from_its_cuda_provider_and_pins(self):
        """The CUDA provider's imports (cuBLAS has no pin: cuDNN's wheel
        requires it), each satisfied by the wheels; the [cuda] extra's
        cuRAND and NVRTC, which the Windows provider never loads, are needs
        only if used (planned from their wheels here). As it is, the
        provider, loaded by path when a session asks for CUDA, finds none
        of its imports (error 126); onnxruntime.preload_dlls() loads every
        one of them by path, and is said to."""
        doc = self.doctor("ort312", "python.exe")
        by_spec = {r["spec"]: r for r in doc["requirements"]}
        self.assertEqual(set(by_spec), {"cudart=12", "cublas=12", "cudnn=9", "cufft=11"},
                         doc["requirements"])
        provider = "onnxruntime_providers_cuda.dll (PE import)"
        for spec in by_spec:
            self.assertIn(provider, by_spec[spec]["from"], by_spec[spec])
            self.assertTrue(by_spec[spec]["satisfied"], by_spec[spec])
            self.assertRegex(by_spec[spec]["path"], r"\\nvidia\\[a-z_]+\\bin\\", by_spec[spec])
        self.assertNotIn("Requires-Dist", by_spec["cublas=12"]["from"])
        planned = {e["name"]: e for e in doc["plan"]}
        for name, folder in (("curand", "curand"), ("nvrtc", "cuda_nvrtc")):
            self.assertIn("\\nvidia\\%s\\bin\\" % folder, planned[name]["path"], planned)
        as_is = [p for p in doc["problems"] if p["problem"].startswith(self.AS_IS)]
        self.assertEqual(len(as_is), 1, [p["problem"] for p in doc["problems"]])
        p = as_is[0]
        self.assertEqual(p["kind"], "not-found")
        self.assertTrue(p["facts"]["consumer"]["value"].endswith(
            "onnxruntime\\capi\\onnxruntime_providers_cuda.dll"), p["facts"])
        self.assertEqual(set(p["facts"]["name"]["value"].split(", ")),
                         {"cublas64_12.dll", "cublasLt64_12.dll", "cudart64_12.dll",
                          "cudnn64_9.dll", "cufft64_11.dll"})
        self.assertIn("before import onnxruntime", p["fix_text"])
        self.assertRegex(p["fix_text"], r"or call onnxruntime\.preload_dlls\(\) in the program "
                         r"before it needs them: it loads .*cufft64_11\.dll")
        self.assertNotIn("is not enough", p["fix_text"])

    def test_onnxruntime_without_the_wheels_its_provider_never_loads_is_no_failure(self):
        """Issue 45, item 3: onnxruntime-gpu 1.26 pins cuRAND and NVRTC
        under [cuda] for every platform, but its Windows CUDA provider
        imports neither. Installed without them (ort312-lean), the doctor
        reports no missing requirement and no failure to come but the
        provider's imports as it is, and a note for each that it is
        needed only if used; before, both were FAIL lines and setup(for_=)
        refused to load anything, though the provider loads."""
        doc = self.doctor("ort312-lean", "python.exe")
        self.assertEqual({r["spec"] for r in doc["requirements"]},
                         {"cudart=12", "cublas=12", "cudnn=9", "cufft=11"}, doc["requirements"])
        self.assertTrue(all(r["satisfied"] for r in doc["requirements"]), doc["requirements"])
        kinds = [p["kind"] for p in doc["problems"] if p["kind"] != "driver-absent"]
        self.assertEqual(kinds[0], "not-found", doc["problems"])
        # What is left is true: cuDNN's runtime-compiled engines open NVRTC
        # by name when they first need it (a warning, which stops nothing).
        for p in [p for p in doc["problems"] if p["kind"] != "driver-absent"][1:]:
            self.assertEqual((p["kind"], p["facts"]["family"]["value"]),
                             ("lazy-unprovided", "nvrtc"), p)
            self.assertIn("cudnn64_9.dll", p["problem"])
        notes = {n["facts"]["name"]["value"]: n for n in doc["notes"] if n["kind"] == "if-used"}
        self.assertEqual(set(notes), {"curand64_10.dll", "nvrtc64_120_0.dll"}, doc["notes"])
        self.assertIn("opens nvrtc64_120_0.dll by name", json.dumps(doc["problems"]))
        for note in notes.values():
            self.assertIn("onnxruntime_providers_cuda.dll, loads neither cuRAND nor NVRTC",
                          note["note"])

    def test_torch_uses_the_copies_it_bundles_in_torch_lib(self):
        """torch's Windows wheel bundles its CUDA DLLs in torch\\lib and its
        __init__ loads them by full path: each requirement from
        torch_cuda.dll's imports is met by torch\\lib's copy, not by the
        newer NVIDIA cuDNN and cuBLAS wheels beside it; its Linux-only pins
        hold nothing here; _C's torch_python.dll is found and the bundled
        cuDNN shim's sub-libraries are no failure to come."""
        doc = self.doctor("torchvenv", "Scripts", "python.exe")
        by_spec = {r["spec"]: r for r in doc["requirements"]}
        self.assertEqual(set(by_spec), {"cudart=12", "cublas=12", "cudnn=9", "cufft=11",
                                        "curand=10", "cusparse=12", "cusolver=11", "nvrtc=12"},
                         doc["requirements"])
        for spec, r in by_spec.items():
            self.assertTrue(r["satisfied"], r)
            self.assertRegex(r["path"], r"\\torch\\lib\\[^\\]+\.dll$", r)
            self.assertNotIn("Requires-Dist", r["from"], r)
        self.assertIn("loaded by its package's __init__", by_spec["cudnn=9"]["from"])
        self.assertIn("torch_cuda.dll (PE import)", by_spec["cusolver=11"]["from"])
        self.assertEqual([p["problem"] for p in doc["problems"]
                          if p["kind"] != "driver-absent"], [])


class Probe(CliTestCase):
    """`cudaload probe`: the verdict, the stages and the exit status."""

    STAGES = ["driver", "init", "devices", "context", "runtime", "cublas", "cudnn"]

    def fake(self, *parts):
        if CLI_IS_WINDOWS:
            return self.fixture("fake_cuda", "windows", *parts)
        return self.fixture("fake_cuda", *parts)

    def fake_driver(self):
        return self.fake("driver", "nvcuda.dll" if CLI_IS_WINDOWS else "libcuda.so.1")

    def fake_roots(self):
        folders = [("bin",), ("cudnn9",)] if CLI_IS_WINDOWS else [("lib",), ("cudnn8",), ("cudnn9",)]
        args = ["--no-defaults"]
        for folder in folders:
            args += ["--root", to_cli(self.fake(*folder))]
        return args

    def check_schema(self, doc):
        self.assertEqual(doc.get("schema_version"), 1, doc)
        self.assertIn(doc["verdict"], ("GPU_OK", "CPU_FALLBACK"))
        for key in ("reason", "summary", "driver", "runtime_version", "devices", "stages"):
            self.assertIn(key, doc)
        self.assertEqual(set(doc["driver"]), {"path", "version"})
        self.assertEqual([s["name"] for s in doc["stages"]], self.STAGES)
        for stage in doc["stages"]:
            self.assertIn(stage["status"], ("ok", "failed", "skipped", "warning"), stage)
            self.assertIsInstance(stage["ms"], (int, float), stage)
            self.assertIsInstance(stage["message"], str, stage)
        for device in doc["devices"]:
            check_probe_device(self, device)

    def test_help_is_a_man_page(self):
        r = self.run_ok("probe", "--help")
        for part in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "OUTPUT", "EXIT STATUS", "EXAMPLES",
                     "--driver", "--out-of-process", "--timeout", "--require", "CPU_FALLBACK"):
            self.assertIn(part, r.stdout)

    def test_usage_errors(self):
        self.assert_usage_error(["probe", "--timeout", "0"], ["--timeout"])
        self.assert_usage_error(["probe", "--timeout", "soon"], ["soon"])
        self.assert_usage_error(["probe", "--driver", ""], ["--driver"])
        self.assert_usage_error(["probe", "--format", "xml"], ["xml"])
        self.assert_usage_error(["probe", "--require", "cudnn~8"], ["cudnn~8"])
        self.assert_usage_error(["probe", "extra"], ["extra"])

    def test_no_driver_falls_back_with_exit_5(self):
        missing = to_cli(self.tmpdir() / "no-driver-here" / "libcuda.so.1")
        r = self.run_ok("probe", "--driver", missing, rc=5)
        first = r.stdout.splitlines()[0]
        self.assertTrue(first.startswith("CPU_FALLBACK: fall back to CPU"), r.describe())
        self.assertIn("no NVIDIA driver", first)
        self.assertIn("no-driver-here", first)
        lines = r.stdout.splitlines()
        header = lines[2].split()
        self.assertEqual(header, ["STAGE", "STATUS", "MS", "MESSAGE"], r.describe())
        self.assertEqual([line.split()[0] for line in lines[3:10]], self.STAGES)
        self.assertEqual(lines[3].split()[1], "failed")
        # The columns line up: every status starts where STATUS does.
        column = lines[2].index("STATUS")
        for line in lines[3:10]:
            self.assertIn(line[column:].split()[0], ("failed", "skipped"), line)

    def test_system_driver_absent_here(self):
        r = run_cli("probe", "--format", "json")
        doc = self.parse_json(r)
        self.check_schema(doc)
        if doc["verdict"] == "GPU_OK" or doc["reason"] != "no_driver":
            self.skipTest("this machine has an NVIDIA driver")
        self.assertEqual(r.rc, 5, r.describe())
        self.assertIn("no NVIDIA driver", doc["summary"])
        self.assertEqual(doc["stages"][0]["status"], "failed")
        self.assertIsNone(doc["driver"]["path"])

    def test_fake_gpu_is_usable_json(self):
        driver = to_cli(self.fake_driver())
        spec = "cudart,cublas,cudnn=9" if CLI_IS_WINDOWS else "cudart,cublas,cudnn=8,cudnn=9"
        r = self.run_ok("probe", "--driver", driver, "--require", spec, *self.fake_roots(), "--format", "json")
        doc = self.parse_json(r)
        self.check_schema(doc)
        self.assertEqual(doc["verdict"], "GPU_OK", r.describe())
        self.assertIsNone(doc["reason"])
        self.assertTrue(doc["summary"].startswith("GPU usable"), doc["summary"])
        self.assertEqual([s["status"] for s in doc["stages"]], ["ok"] * 7, doc["stages"])
        self.assertEqual(doc["driver"]["version"], 12040)
        self.assertTrue(same_file(doc["driver"]["path"], self.fake_driver()), doc["driver"])
        self.assertEqual(doc["runtime_version"], 12040)
        self.assertEqual(doc["devices"], [{"name": "Fake CUDA Device", "compute_capability": "9.0",
                                           "memory_mib": 81559,
                                           "uuid": "GPU-01122334-4556-6778-899a-abbccddeef00",
                                           "driver_model": "WDDM" if CLI_IS_WINDOWS else "not_applicable",
                                           "kernel_timeout": False, "compute_mode": "default",
                                           "integrated": False, "free_memory_mib": 81559}])

    def test_device_facts_in_text_and_json(self):
        """Issue 17: how each device runs (driver model, display watchdog,
        compute mode, free memory), as the driver says it, in both formats."""
        driver = to_cli(self.fake_driver())
        env = {"FAKE_CUDA_KERNEL_TIMEOUT": "1", "FAKE_CUDA_COMPUTE_MODE": "3",
               "FAKE_CUDA_INTEGRATED": "1", "FAKE_CUDA_FREE_MIB": "512"}
        r = self.run_with_env(["probe", "--driver", driver, "--format", "json"], env)
        self.assertEqual(r.rc, 0, r.describe())
        device = self.parse_json(r)["devices"][0]
        self.assertEqual((device["kernel_timeout"], device["compute_mode"], device["integrated"],
                          device["free_memory_mib"]), (True, "exclusive_process", True, 512), device)
        r = self.run_with_env(["probe", "--driver", driver], env)
        self.assertEqual(r.rc, 0, r.describe())
        model = "WDDM" if CLI_IS_WINDOWS else "not applicable (Linux)"
        self.assertIn("  driver model %s, display watchdog on, compute mode exclusive_process, "
                      "integrated, 512 MiB free\n" % model, r.stdout, r.describe())
        self.assertIn("512 MiB of 81559 MiB free", r.stdout, r.describe())

    def test_yaml_matches_json(self):
        try:
            import yaml
        except ImportError:
            self.skipTest("PyYAML is not installed")
        driver = to_cli(self.fake_driver())
        as_json = self.parse_json(self.run_ok("probe", "--driver", driver, "--format", "json"))
        as_yaml = yaml.safe_load(self.run_ok("probe", "--driver", driver, "--format", "yaml").stdout)
        for doc in (as_json, as_yaml):
            for stage in doc["stages"]:
                stage.pop("ms")
        self.assertEqual(as_json, as_yaml)

    def test_out_of_process_times_out_on_a_hung_driver(self):
        driver = to_cli(self.fake_driver())
        env = dict(os.environ, FAKE_CUDA_INIT="hang")
        proc = subprocess.run(CLI + ["probe", "--driver", driver, "--out-of-process", "--timeout", "1",
                                     "--format", "json"],
                              env=env, capture_output=True, timeout=TIMEOUT_S)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        doc = json.loads(proc.stdout.decode("utf-8"))
        self.assertEqual(doc["reason"], "timeout")
        self.assertIn("did not finish within 1 s", doc["summary"])

    def test_relative_driver(self):
        driver = self.fake_driver()
        here = Path(os.path.realpath(str(driver.parent)))
        absolute = to_cli(here / driver.name)

        def answer(r):
            self.assertEqual(r.rc, 0, r.describe())
            doc = self.parse_json(r)
            for stage in doc["stages"]:
                stage.pop("ms")  # timings differ run to run
            return doc

        expected = answer(self.run_ok("probe", "--driver", absolute, "--format", "json"))
        self.assertEqual(expected["driver"]["path"], absolute)
        for spelling in ("./" + driver.name, "../%s/%s" % (here.name, driver.name)):
            r = run_cli("probe", "--driver", spelling, "--format", "json", cwd=str(here))
            self.assertEqual(answer(r), expected, "--driver %s from %s" % (spelling, here))
        r = run_cli("probe", "--driver", "no-such-driver", cwd=str(here))
        self.assertEqual(r.rc, 5, r.describe())
        self.assertIn(to_cli(here / "no-such-driver"), r.stdout.splitlines()[0], r.describe())

    def run_with_env(self, args, env, timeout=TIMEOUT_S):
        proc = subprocess.run(CLI + list(args), env=dict(os.environ, **env), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return Result(list(args), proc)

    def test_out_of_process_json_survives_a_printing_driver(self):
        # Issue 12, item 6: the driver's stdout is not the report's.
        driver = to_cli(self.fake_driver())
        chatter = "driver chatter on stdout {\n"
        r = self.run_with_env(["probe", "--driver", driver, "--out-of-process", "--format", "json"],
                              {"FAKE_CUDA_PRINT_STDOUT": chatter})
        self.assertEqual(r.rc, 0, r.describe())
        doc = self.parse_json(r)
        self.check_schema(doc)
        self.assertEqual(doc["verdict"], "GPU_OK", r.describe())
        # It is shown where diagnostics go.
        self.assertIn(chatter.strip(), r.stderr, r.describe())

    def test_fifo_driver_is_refused_without_blocking(self):
        # Issue 12, item 4: dlopen() of a FIFO waits for a writer for ever.
        if CLI_IS_WINDOWS or not hasattr(os, "mkfifo"):
            self.skipTest("FIFOs are a POSIX thing")
        fifo = self.tmpdir() / "libcuda.so.1"
        os.mkfifo(str(fifo))
        for args, env in ((["probe", "--driver", str(fifo)], {}),
                          (["probe", "--driver", str(fifo), "--out-of-process", "--timeout", "20"], {}),
                          (["doctor", "--probe", "--no-defaults"], {"CUDALOAD_DRIVER": str(fifo)})):
            try:
                r = self.run_with_env(args, env, timeout=30)
            except subprocess.TimeoutExpired:
                self.fail("cudaload %s blocked on the FIFO %s" % (" ".join(args), fifo))
            self.assertIn(r.rc, (5, 6), r.describe())
            self.assertIn("%s: not a regular file (a FIFO)" % fifo, r.stdout, r.describe())

    def test_child_mode_reports_on_its_own_channel(self):
        # The helper mode of the Windows out-of-process probe: the report goes
        # to the channel named by --report-handle, never to stdout.
        self.assert_usage_error(["probe", "--child"], ["--report-handle"])
        if CLI_IS_WINDOWS:
            self.skipTest("a POSIX descriptor is passed here; under Wine the library runs this mode")
        driver = str(self.fake_driver())
        read_end, write_end = os.pipe()
        try:
            proc = subprocess.run(CLI + ["probe", "--child", "--report-handle", str(write_end), "--driver", driver,
                                         "--no-defaults"],
                                  env=dict(os.environ, FAKE_CUDA_PRINT_STDOUT="chatter"), pass_fds=(write_end,),
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT_S)
            os.close(write_end)
            write_end = -1
            chunks = []
            while True:
                chunk = os.read(read_end, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
        report = b"".join(chunks).decode("utf-8")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout, b"")
        self.assertIn(b"chatter", proc.stderr)
        self.assertTrue(report.startswith("cudaload-probe 1\n"), report)
        self.assertTrue(report.endswith("\nend\n"), report)
        self.assertIn("verdict\t0\t0\tGPU usable", report)




class Explain(CliTestCase):
    """cudaload explain: the loader model's answer for consumer files and
    running processes (the differential harness in tests/loader_oracle
    checks the answers against the real loader)."""

    def explain(self, *args, rc=None, env=None):
        proc = subprocess.run(CLI + ["explain"] + list(args), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT_S, env=env)
        r = Result(["explain"] + list(args), proc)
        if rc is not None:
            self.assertEqual(r.rc, rc, r.describe())
        return r

    def require_linux_tool(self):
        if CLI_IS_WINDOWS:
            self.skipTest("checked against a Linux build (ELF fixtures)")

    def test_usage_errors(self):
        self.assert_usage_error(["explain"], ["FILE", "--pid"])
        self.assert_usage_error(["explain", "--pid", "abc"], ["--pid"])
        self.assert_usage_error(["explain", "--pid", "1", "x.so"], ["not both"])
        self.assert_usage_error(["explain", "--format", "xml", "x.so"], ["xml"])
        r = self.explain(to_cli(self.tmpdir() / "no-such.so"), rc=3)
        self.assertIn("no-such.so", r.stderr, r.describe())

    def test_lazy_dependency_not_found_then_planned(self):
        self.require_linux_tool()
        ops = self.fixture("cudnn8_compat", "libcudnn_ops_infer.so.8")
        r = self.explain("--format", "json", "--no-defaults", to_cli(ops), rc=6)
        doc = self.parse_json(r)
        self.assertEqual(doc["schema_version"], 1)
        consumer = doc["objects"][0]
        self.assertTrue(same_file(consumer["path"], ops), doc)
        self.assertTrue(consumer["consumer"])
        lazy = {n["name"]: n for n in consumer["needs"] if n["kind"] == "lazy"}
        self.assertEqual(lazy["libcublas.so.12"]["rule"], "not-found", lazy)
        self.assertIsNone(lazy["libcublas.so.12"]["resolved"])
        self.assertTrue(any("libcublas.so.12" in p and "not found" in p for p in doc["problems"]),
                        doc["problems"])
        # With cuBLAS 12 planned (as if preloaded), the loader finds it already loaded.
        cublas = self.fixture("preload", "cublas12")
        r = self.explain("--format", "json", "--no-defaults", "--root", to_cli(cublas),
                         "--require", "cublas=12", to_cli(ops), rc=0)
        doc = self.parse_json(r)
        lazy = {n["name"]: n for n in doc["objects"][0]["needs"] if n["kind"] == "lazy"}
        self.assertEqual(lazy["libcublas.so.12"]["rule"], "already-loaded", lazy)
        self.assertTrue(same_file(lazy["libcublas.so.12"]["resolved"], cublas / "libcublas.so.12"))
        self.assertEqual(doc["problems"], [])

    def test_the_answer_leads(self):
        """Issue 46: explain's first line is its verdict (the file, how
        many problems and the first of them), its problems and their fixes
        come before the tree they were found in."""
        if CLI_IS_WINDOWS:
            ops = self.fixture("preload", "windows", "cudnn8", "cudnn_ops_infer64_8.dll")
            name, missing = "cudnn_ops_infer64_8.dll", "cublas64_12.dll"
        else:
            ops = self.fixture("cudnn8_compat", "libcudnn_ops_infer.so.8")
            name, missing = "libcudnn_ops_infer.so.8", "libcublas.so.12"
        r = self.explain("--no-defaults", to_cli(ops), rc=6)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r"^%s: \d+ files? the loader would open; 1 problem: .*%s"
                         % (re.escape(name), re.escape(missing)), r.describe())
        problems, tree = lines.index("Problems"), lines.index("What the loader would open")
        self.assertLess(problems, tree, r.stdout)
        self.assertTrue(lines[problems + 1].startswith("  1. "), r.stdout)
        self.assertTrue(lines[problems + 2].startswith("     fix: "), r.stdout)
        # Healthy: the first line says so; its empty problem list comes last.
        cublas = self.fixture("preload", "windows", "cublas12") if CLI_IS_WINDOWS \
            else self.fixture("preload", "cublas12")
        r = self.explain("--no-defaults", "--root", to_cli(cublas), "--require", "cublas=12",
                         to_cli(ops), rc=0)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r"^%s: \d+ files? the loader would open; no problems$"
                         % re.escape(name), r.describe())
        self.assertLess(lines.index("What the loader would open"), lines.index("Problems"))

    def test_text_and_dot(self):
        self.require_linux_tool()
        main = self.fixture("wheels-cu13", "site-packages", "nvidia", "cudnn", "lib", "libcudnn.so.9")
        sp = self.fixture("wheels-cu13", "site-packages")
        r = self.explain("--no-defaults", "--root", to_cli(sp), to_cli(main))
        self.assertIn("libcudnn_graph.so.9", r.stdout, r.describe())
        self.assertIn("[runpath", r.stdout, r.describe())
        self.assertIn("9.19.0.56", r.stdout, r.describe())
        self.assertIn("\nProblems\n", r.stdout)
        r = self.explain("--no-defaults", "--root", to_cli(sp), "--format", "dot", to_cli(main))
        self.assertTrue(r.stdout.startswith("digraph cudaload_explain {"), r.describe())
        self.assertTrue(r.stdout.rstrip().endswith("}"), r.describe())
        self.assertIn('"runpath"', r.stdout)

    def test_explain_of_the_module_reaches_the_bundled_cudnn(self):
        """The module Python imports (ctranslate2/_ext.*.so) needs the
        package's library through its DT_RPATH, which needs the renamed
        cuDNN 8 shim auditwheel bundled (libcudnn-<hex>.so.8.9.7, SONAME
        renamed too): explain follows it, and predicts the classic failure
        (the shim's lazy open of libcudnn_ops_infer.so.8) and the known
        consumer's own by-name open of cuBLAS 12."""
        self.require_linux_tool()
        sp = self.fixture("preload", "bundled", "site-packages")
        ext = sp / "ctranslate2" / "_ext.cpython-311-x86_64-linux-gnu.so"
        env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        doc = self.parse_json(self.explain("--format", "json", "--no-defaults", to_cli(ext),
                                           env=env, rc=6))
        shim = [o for o in doc["objects"] if o["path"].endswith("libcudnn-0a1b2c3d.so.8.9.7")]
        self.assertEqual(len(shim), 1, doc["objects"])
        self.assertEqual((shim[0]["family"], shim[0]["major"]), ("cudnn", 8), shim)
        lazy = {n["name"]: n for n in shim[0]["needs"] if n["kind"] == "lazy"}
        self.assertEqual(lazy["libcudnn_ops_infer.so.8"]["rule"], "not-found", lazy)
        self.assertTrue(any("opens libcudnn_ops_infer.so.8 by name" in p for p in doc["problems"]),
                        doc["problems"])
        self.assertTrue(any("libctranslate2-0a1b2c3d.so.4.4.0 opens libcublas.so.12 by name" in p
                            for p in doc["problems"]), doc["problems"])

    def test_shadowed_siblings_are_a_problem(self):
        """LD_LIBRARY_PATH comes before RUNPATH: with another cuDNN 9 on it,
        the shim opens that copy's sub-libraries (docs/loader.md, Linux 4)."""
        self.require_linux_tool()
        sp = self.fixture("wheels-cu13", "site-packages")
        other = self.tmpdir() / "other"
        shutil.copytree(str(sp), str(other))
        info = [d for d in os.listdir(str(other)) if d.startswith("nvidia_cudnn")][0]
        meta = other / info / "METADATA"
        meta.write_text(meta.read_text().replace("Version: 9.19.0.56", "Version: 9.1.0.70"))
        (other / info).rename(other / "nvidia_cudnn_cu13-9.1.0.70.dist-info")
        main = sp / "nvidia" / "cudnn" / "lib" / "libcudnn.so.9"
        env = dict(os.environ, LD_LIBRARY_PATH=str(other / "nvidia" / "cudnn" / "lib"))
        r = self.explain("--format", "json", "--no-defaults", "--root", to_cli(sp),
                         "--root", to_cli(other), to_cli(main), env=env, rc=6)
        doc = self.parse_json(r)
        lazy = {n["name"]: n for n in doc["objects"][0]["needs"] if n["kind"] == "lazy"}
        self.assertEqual(lazy["libcudnn_ops.so.9"]["rule"], "ld-library-path", lazy)
        self.assertTrue(any("two versions" in p and "9.1.0.70" in p and "9.19.0.56" in p
                            for p in doc["problems"]), doc["problems"])
        # The other copy need not be a root: the folder the loader takes it
        # from tells its version (its dist-info), as a scan of it would.
        r = self.explain("--format", "json", "--no-defaults", "--root", to_cli(sp),
                         to_cli(main), env=env, rc=6)
        doc = self.parse_json(r)
        lazy = {n["name"]: n for n in doc["objects"][0]["needs"] if n["kind"] == "lazy"}
        self.assertEqual(lazy["libcudnn_ops.so.9"]["version"], "9.1.0.70", lazy)
        self.assertTrue(any("two versions" in p and "9.1.0.70" in p and "9.19.0.56" in p
                            for p in doc["problems"]), doc["problems"])
        # env warns that its variable would do this to that shim. Here the
        # shim (9.1.0.70) is older than the parts it gets (9.19.0.56): they
        # define all it forwards, so that is no two versions (catalog.h,
        # main_fronts_parts); the shadowed siblings stay a warning.
        r = run_cli("env", "--no-defaults", "--root", to_cli(other), "--root", to_cli(sp),
                    "--require", "cudnn=9")
        self.assertEqual(r.rc, 0, r.describe())
        self.assertIn("warning", r.stderr, r.describe())
        self.assertIn("libcudnn.so.9 takes libcudnn_", r.stderr, r.describe())
        self.assertIn("(rule: ld-library-path), not the copies beside it in %s"
                      % (other / "nvidia" / "cudnn" / "lib"), r.stderr, r.describe())
        self.assertNotIn("two versions", r.stderr, r.describe())

    def test_pid(self):
        self.require_linux_tool()
        lib8 = self.fixture("preload", "cudnn8", "libcudnn.so.8")
        with open(lib8, "rb") as f:
            head = f.read(20)
        own = {"x86_64": 62, "aarch64": 183}.get(platform.machine())
        if head[:4] == b"\x7fELF" and int.from_bytes(head[18:20], "little") != own:
            self.skipTest("the fixtures are built for another machine than this "
                          "Python (%s): it cannot load one to explain" % platform.machine())
        code = ("import ctypes, sys, time; ctypes.CDLL(sys.argv[1]); "
                "print('ready', flush=True); time.sleep(60)")
        child = subprocess.Popen([sys.executable, "-c", code, str(lib8)], stdout=subprocess.PIPE)
        try:
            self.assertEqual(child.stdout.readline().strip(), b"ready")
            r = self.explain("--pid", str(child.pid), "--format", "json")
            self.assertIn(r.rc, (0, 6), r.describe())
            doc = self.parse_json(r)
            self.assertEqual(doc["pid"], child.pid)
            self.assertTrue(any(same_file(o["path"], lib8) and o["family"] == "cudnn"
                                for o in doc["objects"]), doc)
        finally:
            child.kill()
            child.wait()
            child.stdout.close()
        r = self.explain("--pid", "999999999", rc=3)
        self.assertIn("999999999", r.stderr)

    def test_pid_of_another_user_is_refused_clearly(self):
        self.require_linux_tool()
        if os.geteuid() != 0:
            self.skipTest("needs root to run the tool as another user")
        setpriv = shutil.which("setpriv")
        if not setpriv:
            self.skipTest("setpriv (util-linux) is not installed")
        if len(CLI) > 1:
            # valgrind would have to read the build tree as that user; the
            # native tier runs this without an emulator.
            self.skipTest("the tool runs under an emulator (%s)" % CLI[0])
        proc = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
                              + CLI + ["explain", "--pid", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertIn(b"process 1", proc.stderr)
        self.assertIn(b"cannot read", proc.stderr)

    def test_hostile_needed_and_runpath_lists_stop_with_a_message(self):
        self.skip_under_qemu("the hostile file is written for this host's machine, which the target's tool passes over")
        # Issue 33, item 10: a 60 KB file naming 2,000 libraries it needs
        # and 1,000 RUNPATH folders, placed where a runtime belongs. The
        # model remembers the folders that do not exist (as glibc does) and
        # stops at its work limit, saying so and naming the file, instead
        # of looking for every name in every folder (22 s before; 65,530
        # names ran for more than 15 minutes).
        self.require_linux_tool()
        sys.path.insert(0, str(SOURCE_ROOT / "tests" / "fixtures"))
        import elf_writer
        import itertools
        import string
        chars = string.ascii_letters + string.digits
        folders = ["/" + a + b for a, b in itertools.islice(itertools.product(chars, chars), 1000)]
        root = self.tmpdir()
        (root / "lib64").mkdir()
        hostile = root / "lib64" / "libcudart.so.13"
        elf_writer.write(str(hostile), "libcudart.so.13",
                         ["libh%04d.so" % i for i in range(2000)], ":".join(folders))
        r = self.explain("--format", "json", "--no-defaults", "--root", to_cli(root),
                         to_cli(hostile), rc=6)
        doc = json.loads(r.stdout)
        stopped = [p for p in doc["problems"] if "stopped" in p]
        self.assertEqual(len(stopped), 1, r.describe())
        self.assertIn(str(hostile), stopped[0], r.describe())
        self.assertIn("2000 DT_NEEDED names, 1000 RUNPATH folders", stopped[0], r.describe())
        # What was modelled before the limit is reported as usual.
        needs = doc["objects"][0]["needs"]
        self.assertTrue(0 < len(needs) < 2000, len(needs))
        self.assertEqual(needs[0]["name"], "libh0000.so")
        self.assertEqual(needs[0]["rule"], "not-found")



class IncludeDir(CliTestCase):
    """`cudaload include-dir SPEC`: the header folder beside the library a
    plan chooses, or exit 4 with where it looked."""

    # The wheels of the tool's own platform: cudart with its include/, and
    # a cuDNN without one.
    def wheels(self):
        if CLI_IS_WINDOWS:
            return self.fixture("windows", "site-packages"), "cudnn=9", "cudnn64_9.dll"
        return self.fixture("wheels-cu12", "site-packages"), "cudnn=8", "libcudnn.so.8"

    def test_prints_the_wheels_include_folder(self):
        root = self.wheels()[0]
        r = self.run_ok("include-dir", "cudart", "--no-defaults", "--root", to_cli(root))
        self.assertEqual(r.stderr, "", r.describe())
        folder = from_cli(r.stdout.rstrip("\n"))
        self.assertEqual(r.stdout.count("\n"), 1, r.describe())
        self.assertTrue(folder.replace(os.sep, "/").endswith("nvidia/cuda_runtime/include"), r.describe())
        self.assertTrue(os.path.isfile(os.path.join(folder, "cuda_runtime.h")), r.describe())

    def test_no_include_folder_says_which_header_and_where(self):
        # The cuDNN wheel fixtures have no include/: exit 4, nothing on stdout,
        # and the message names the header it looked for and the library.
        root, spec, cudnn = self.wheels()
        r = self.run_ok("include-dir", spec, "--no-defaults", "--root", to_cli(root), rc=4)
        self.assertEqual(r.stdout, "", r.describe())
        self.assertIn("no include folder holding cudnn.h", r.stderr, r.describe())
        self.assertIn(cudnn, r.stderr, r.describe())

    def test_unsatisfied_requirement_exits_4(self):
        root = self.tmpdir()
        r = self.run_ok("include-dir", "cudart", "--no-defaults", "--root", to_cli(root), rc=4)
        self.assertEqual(r.stdout, "", r.describe())
        self.assertIn("cudart", r.stderr, r.describe())

    def test_one_spec_only(self):
        self.assert_usage_error(["include-dir", "cudart", "cublas"], names=("one SPEC",))
        self.assert_usage_error(["include-dir"], names=("SPEC",))

    def test_a_cuda_major_names_no_library(self):
        # cuda=13 only chooses the CUDA major: said, never an empty message
        # (issue 33, item 13).
        for spec in ("cuda=13", "CUDA=12"):
            r = self.assert_usage_error(["include-dir", spec, "--no-defaults"],
                                        names=(spec, "names no library", "cudart="))
            self.assertNotRegex(r.stderr, r"include-dir: *\n", r.describe())


class Hardening(CliTestCase):
    """What hostile names, values and outputs must not do: plant a search
    path entry, reach the terminal as control sequences, break a JSON or
    YAML report, or be lost without a word."""

    def cudnn8_copy(self, folder_name):
        """A copy of the cuDNN 8 fixture in a folder with the given name
        (bytes or str); returns its path as bytes."""
        src = self.fixture(*(("preload", "windows", "cudnn8") if CLI_IS_WINDOWS else ("cudnn8_compat",)))
        top = self.tmpdir()
        name = folder_name if isinstance(folder_name, bytes) else folder_name.encode()
        dst = os.path.join(os.fsencode(str(top)), name)
        os.mkdir(dst)
        for entry in os.listdir(str(src)):
            shutil.copy2(os.path.join(str(src), entry), os.path.join(dst, os.fsencode(entry)))
        return dst

    def run_raw(self, *args, cwd=None, env=None):
        """The tool with bytes arguments; (rc, stdout bytes, stderr bytes)."""
        proc = subprocess.run([os.fsencode(w) for w in CLI] + [os.fsencode(a) for a in args],
                              cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        return proc.returncode, proc.stdout, proc.stderr

    def require_linux_tool(self, why):
        if CLI_IS_WINDOWS or os.name == "nt":
            self.skipTest(why)

    # 1. A folder whose name holds the list separator.
    def test_env_and_exec_refuse_a_folder_holding_the_separator(self):
        sep = ";" if CLI_IS_WINDOWS else ":"
        folder = self.cudnn8_copy("c%so%sl" % (sep, sep))
        root = to_cli(os.fsdecode(folder))
        for command in (["env", "--require", "cudnn=8"],
                        ["env", "--require", "cudnn=8", "--dry-run"],
                        ["exec", "--require", "cudnn=8", "--dry-run", "--", "app"]):
            r = run_cli(*(command[:3] + ["--no-defaults", "--root", root] + command[3:]))
            self.assertEqual(r.rc, 4, r.describe())
            self.assertEqual(r.stdout, "", "nothing may be printed to evaluate\n" + r.describe())
            self.assertIn("c%so%sl" % (sep, sep), r.stderr, r.describe())
            self.assertIn("separator", r.stderr, r.describe())
        if not CLI_IS_WINDOWS:
            # The planting itself: run from a folder holding o/libcudnn.so.8,
            # the command must not run at all.
            here = self.tmpdir()
            (here / "o").mkdir()
            r = run_cli("exec", "--require", "cudnn=8", "--no-defaults", "--root", root, "--",
                        "sh", "-c", "echo RAN", cwd=str(here))
            self.assertEqual(r.rc, 4, r.describe())
            self.assertNotIn("RAN", r.stdout, r.describe())

    # 2. Control bytes from folder names, spec text and manifests.
    HOSTILE = b"esc\x1b]0;pwned\x07\rcsi\xc2\x9b31m"

    def assert_no_controls(self, data, where):
        for byte in (b"\x1b", b"\x07", b"\r", b"\xc2\x9b"):
            self.assertNotIn(byte, data, "%s carries the raw control %r:\n%r" % (where, byte, data[:3000]))

    def test_text_output_escapes_control_bytes(self):
        self.require_linux_tool("Windows file names cannot hold control characters")
        folder = self.cudnn8_copy(self.HOSTILE)
        root = os.fsdecode(folder)
        cases = [
            ("scan", "--no-defaults", "--root", root),
            ("scan", "--no-defaults", "--root", root + "/missing"),
            ("doctor", "--no-defaults", "--root", root, "--require", "cudnn=8"),
            ("doctor", "--no-defaults", "--root", root + "/missing", "--require", "cudnn=8"),
            ("env", "--no-defaults", "--root", root, "--require", "cudnn=8", "--dry-run"),
            ("env", "--no-defaults", "--root", root, "--require", "cudnn=8"),
            ("exec", "--no-defaults", "--root", root, "--require", "cudnn=8", "--dry-run", "--", "a\x1bb"),
            ("inspect", os.path.join(root, "libcudnn.so.8")),
            ("inspect", os.path.join(root, "nonexistent.so")),
            ("env", "--no-defaults", "--require", "cudnn=8\x1b[2J"),
            ("scan", "--frobnicate\x1b[2J"),
        ]
        for args in cases:
            rc, out, err = self.run_raw(*args)
            self.assert_no_controls(out, "stdout of %r" % (args,))
            self.assert_no_controls(err, "stderr of %r" % (args,))
            self.assertIn(b"\\x1b", out + err, "the escape is not shown as \\x1b: %r" % (args,))
        # The shell line of env is refused, not printed raw.
        rc, out, err = self.run_raw("env", "--no-defaults", "--root", root, "--require", "cudnn=8")
        self.assertEqual((rc, out), (3, b""), err)
        self.assertIn(b"control character", err)

    def test_manifest_messages_escape_control_bytes(self):
        self.require_linux_tool("checked against a Linux build")
        manifest = self.tmpdir() / "cudaload.yaml"
        manifest.write_bytes(b'schema_version: 1\nrequirements: ["cudnn=8\\e[2J\\a"]\n')
        rc, out, err = self.run_raw("doctor", "--no-defaults", "--manifest", str(manifest))
        if b"YAML reader" in err:
            self.skipTest("the tool is built without libyaml (CUDALOAD_WITH_YAML=OFF)")
        self.assertEqual(rc, 3, err)
        self.assert_no_controls(out + err, "doctor --manifest")
        self.assertIn(b"\\x1b", err)

    def test_probe_text_escapes_the_drivers_strings(self):
        self.require_linux_tool("checked against a Linux build")
        driver = str(self.fixture("fake_cuda", "driver", "libcuda.so.1"))
        env = dict(os.environ, FAKE_CUDA_DEVICE_NAME="GPU\x1b]0;pwned\x07\rX")
        for args in (["probe", "--driver", driver], ["doctor", "--verbose", "--no-defaults", "--probe"]):
            if args[0] == "doctor":
                env["CUDALOAD_DRIVER"] = driver
            rc, out, err = self.run_raw(*args, env=env)
            self.assert_no_controls(out + err, " ".join(args))
            self.assertIn(b"GPU\\x1b]0;pwned\\x07\\x0dX", out, out.decode(errors="replace"))

    def test_probe_shows_an_out_of_range_capability_as_unknown(self):
        self.require_linux_tool("checked against a Linux build")
        driver = str(self.fixture("fake_cuda", "driver", "libcuda.so.1"))
        env = dict(os.environ, FAKE_CUDA_CC_MAJOR="2147483647")
        rc, out, err = self.run_raw("probe", "--driver", driver, "--format", "json", env=env)
        doc = json.loads(out.decode())
        self.assertTrue(doc["devices"], doc)
        self.assertIsNone(doc["devices"][0]["compute_capability"], doc)
        rc, out, err = self.run_raw("probe", "--driver", driver, env=env)
        self.assertIn(b"compute capability unknown", out, out)
        self.assertNotIn(b"compute capability 0.0", out)

    # 8. Names that are not UTF-8 in machine formats.
    def test_json_and_yaml_keep_names_that_are_not_utf8(self):
        self.require_linux_tool("Windows file names are UTF-16")
        folder = self.cudnn8_copy(b"caf\xe9")
        root = os.fsdecode(folder)
        rc, out, err = self.run_raw("scan", "--no-defaults", "--root", root, "--format", "json")
        self.assertEqual(rc, 0, err)
        doc = json.loads(out.decode("utf-8"))  # strict: the document is valid UTF-8
        self.assertEqual(os.fsencode(doc["roots"][0]["path"]), folder)
        paths = [os.fsencode(lib["path"]) for lib in doc["libraries"]]
        self.assertIn(os.path.join(folder, b"libcudnn.so.8"), paths)
        self.assertIn(b"\\udce9", out)
        try:
            import yaml
        except ImportError:
            self.skipTest("PyYAML is not installed (python3 -m pip install pyyaml)")
        rc, out, err = self.run_raw("scan", "--no-defaults", "--root", root, "--format", "yaml")
        self.assertEqual(rc, 0, err)
        doc = yaml.safe_load(out.decode("utf-8"))
        self.assertEqual(os.fsencode(doc["roots"][0]["path"]), folder)
        self.assertIn(os.path.join(folder, b"libcudnn.so.8"), [os.fsencode(l["path"]) for l in doc["libraries"]])
        rc, out, err = self.run_raw("doctor", "--no-defaults", "--root", root, "--require", "cudnn=8",
                                    "--format", "yaml")
        doc = yaml.safe_load(out.decode("utf-8"))
        self.assertEqual(os.fsencode(doc["plan"][0]["path"]).startswith(folder), True, doc["plan"])
        rc, out, err = self.run_raw("scan", "--no-defaults", "--root", root)
        self.assertIn(b"caf\\xe9", out)

    # 3. Each shell's line sets exactly the value.
    SHELL_NAMES = ["q'uote", 'dq"x', "dollar$HOME", "back`tick`", "pct%PATH%x", "bang!x", "amp&x",
                   "caret^x", "par(en)", "sp ace", "back\\slash", "curly\u2019s\u2018", "caf\u00e9",
                   "\u65e5\u672c", "semi;x", "lt<gt>", "pipe|x"]

    def shell_values(self, shell, ascii_only=False):
        """The composed value for a root whose name holds every awkward
        character, and the line env prints for shell."""
        top = self.tmpdir()
        src = self.fixture("cudnn8_compat")
        folder = top
        for name in self.SHELL_NAMES:
            if ascii_only and not name.isascii():
                continue
            folder = folder / name
        folder.mkdir(parents=True)
        for entry in os.listdir(str(src)):
            shutil.copy2(str(src / entry), str(folder / entry))
        env = dict(os.environ, LD_LIBRARY_PATH="/existing/one:/existing/'two'")
        rc, out, err = self.run_raw("env", "--no-defaults", "--root", str(folder), "--require", "cudnn=8",
                                    "--shell", shell, env=env)
        self.assertEqual(rc, 0, err)
        return str(folder) + ":/existing/one:/existing/'two'", out, env

    def test_sh_line_round_trips(self):
        self.require_linux_tool("the POSIX shells run the Linux build's line")
        want, line, env = self.shell_values("sh")
        for sh in ("sh", "bash", "dash"):
            if not shutil.which(sh):
                continue
            got = subprocess.run([sh, "-c", line.decode() + '\nprintf %s "$LD_LIBRARY_PATH"'],
                                 stdout=subprocess.PIPE, env=env, timeout=60).stdout
            self.assertEqual(got.decode(), want, "%s set another value from %r" % (sh, line))

    def test_fish_line_round_trips(self):
        self.require_linux_tool("fish runs the Linux build's line")
        fish = shutil.which("fish")
        if not fish:
            self.skipTest("fish is not installed (apt-get install fish; scripts/test installs it)")
        want, line, env = self.shell_values("fish")
        script = self.tmpdir() / "env.fish"
        script.write_bytes(line)
        got = subprocess.run([fish, "--no-config", "-c", "source %s; printenv LD_LIBRARY_PATH" % script],
                             stdout=subprocess.PIPE, env=env, timeout=60).stdout
        self.assertEqual(got.decode().rstrip("\n"), want, "fish set another value from %r" % line)

    def test_cmd_line_round_trips_under_wine(self):
        self.require_linux_tool("cmd runs the line under Wine from the Linux side")
        wine = shutil.which("wine64") or (os.path.exists("/usr/lib/wine/wine64") and "/usr/lib/wine/wine64") \
            or shutil.which("wine")
        if not wine:
            self.skipTest("Wine is not installed (apt-get install wine wine64; scripts/test installs it)")
        # Wine's cmd reads a batch file in the ANSI code page, so names
        # beyond ASCII are left to the Windows tier (a UTF-8 question, not a
        # quoting one); every character cmd treats specially is here.
        want, line, env = self.shell_values("cmd", ascii_only=True)
        work = self.tmpdir()
        prefix = (FIXTURES.parent / "wineprefix-cmd") if FIXTURES else work / "prefix"
        wenv = dict(env, CUDALOAD_WINEPREFIX=str(prefix))
        subprocess.run([str(SOURCE_ROOT / "scripts" / "wine-run"), "--init"], env=wenv, cwd=str(work),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        batch = work / "env.cmd"
        out = work / "out.txt"
        batch.write_bytes(b"@echo off\r\n" + line.rstrip(b"\n") + b"\r\nset LD_LIBRARY_PATH\r\n")
        wenv.update(WINEPREFIX=str(prefix), WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=")
        wenv.pop("DISPLAY", None)
        with open(str(out), "wb") as log:  # a file, never a pipe, for Wine
            subprocess.run([wine, "cmd", "/c", "Z:" + str(batch).replace("/", "\\")], env=wenv,
                           stdout=log, stderr=log, stdin=subprocess.DEVNULL, timeout=300)
        got = out.read_bytes().decode("utf-8", "replace").splitlines()
        value = [l[len("LD_LIBRARY_PATH="):] for l in got if l.startswith("LD_LIBRARY_PATH=")]
        self.assertEqual(value, [want], "cmd set another value from %r:\n%s" % (line, "\n".join(got)))

    def test_powershell_line_doubles_every_single_quote(self):
        self.require_linux_tool("checked against a Linux build")
        want, line, env = self.shell_values("powershell")
        text = line.decode().rstrip("\n")
        prefix = "$env:LD_LIBRARY_PATH = '"
        self.assertTrue(text.startswith(prefix) and text.endswith("'"), text)
        body = text[len(prefix):-1]
        # PowerShell ends a verbatim string at any of these unless doubled.
        quotes = "'\u2018\u2019\u201a\u201b"
        value, i = [], 0
        while i < len(body):
            if body[i] in quotes:
                self.assertTrue(i + 1 < len(body) and body[i + 1] == body[i],
                                "an undoubled quote %r at %d in %r" % (body[i], i, text))
                value.append(body[i])
                i += 2
            else:
                value.append(body[i])
                i += 1
        self.assertEqual("".join(value), want)

    # 9. A report that cannot be written is said so.
    def test_write_errors_are_reported(self):
        self.require_linux_tool("/dev/full is Linux's")
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        compat = str(self.fixture("cudnn8_compat"))
        for args in (["scan", "--no-defaults", "--root", compat],
                     ["scan", "--no-defaults", "--root", compat, "--format", "json"],
                     ["inspect", os.path.join(compat, "libcudnn.so.8")],
                     ["env", "--no-defaults", "--root", compat, "--require", "cudnn=8"],
                     ["probe", "--driver", "/nonexistent/libcuda.so.1"],
                     ["doctor", "--no-defaults"],
                     ["--help"], ["--version"]):
            with open("/dev/full", "wb") as full:
                proc = subprocess.run(CLI + args, stdout=full, stderr=subprocess.PIPE,
                                      stdin=subprocess.DEVNULL, timeout=TIMEOUT_S)
            self.assertEqual(proc.returncode, 1, (args, proc.stderr))
            self.assertIn(b"could not write to standard output", proc.stderr, args)



def elf_with_empty_needed(src, dst):
    """A copy of the ELF64 little-endian library src whose first DT_NEEDED
    entry names the empty string (offset 0 of its string table)."""
    data = bytearray(Path(src).read_bytes())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise unittest.SkipTest("%s is not a 64-bit little-endian ELF file" % src)
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        ptype, _, offset, _, _, filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if ptype != 2:  # PT_DYNAMIC
            continue
        for k in range(filesz // 16):
            tag, _ = struct.unpack_from("<qQ", data, offset + 16 * k)
            if tag == 1:  # DT_NEEDED
                struct.pack_into("<qQ", data, offset + 16 * k, 1, 0)
                Path(dst).write_bytes(bytes(data))
                return dst
    raise unittest.SkipTest("%s has no DT_NEEDED entry to empty" % src)


class Hardening3(CliTestCase):
    """Issue 33: what an adversarial pass on 0.2.0 broke."""

    def require_linux_tool(self, why):
        if CLI_IS_WINDOWS or os.name == "nt":
            self.skipTest(why)

    # 11. An empty DT_NEEDED entry, which glibc matches to the main program.
    def test_an_empty_needed_entry_is_the_main_program(self):
        self.skip_under_qemu("the library is built for the target, and this host's glibc is the judge")
        self.require_linux_tool("an ELF library loaded by glibc")
        src = self.fixture("cudnn8_compat", "libcudnn.so.8")
        folder = self.tmpdir() / "lib64"
        folder.mkdir()
        lib = elf_with_empty_needed(src, folder / "libcudnn.so.8")
        # The real loader loads it: the empty name is the program.
        loaded = subprocess.run([sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])",
                                 str(lib)], capture_output=True, text=True, timeout=TIMEOUT_S)
        self.assertEqual(loaded.returncode, 0, "glibc refused it: %s" % loaded.stderr)
        for fmt in ("text", "json"):
            r = run_cli("explain", "--no-defaults", "--format", fmt, str(lib))
            self.assertIn(r.rc, (0, 6), r.describe())
            self.assertNotIn("out of memory", r.stderr, r.describe())
        doc = self.parse_json(run_cli("explain", "--no-defaults", "--format", "json", str(lib)))
        needs = [n for o in doc["objects"] for n in o["needs"] if n["name"] == ""]
        self.assertEqual(len(needs), 1, doc)
        self.assertEqual(needs[0]["rule"], "already-loaded", needs[0])
        self.assertIn("main program", needs[0]["detail"], needs[0])
        self.assertFalse(any("NOT FOUND" in line and line.split()[0] == "needs"
                             for line in run_cli("explain", "--no-defaults", str(lib)).stdout.splitlines()))


    # 3. Every command the tool prints is safe to paste.
    def fix_of(self, text, start):
        """The command of the fix line in text that starts with start: the
        line itself in the doctor's text (a command is alone on its line), up
        to the note that follows it ("; ...") where the fix is one line."""
        for line in text.splitlines():
            if start in line and ("fix: " in line or line.startswith("          ")):
                fix = line[line.index(start):]
                return fix[:fix.index("; ")] if "; " in fix else fix
        self.fail("no fix line starting %r in:\n%s" % (start, text))

    def site_packages_in(self, folder_name, tree):
        top = self.tmpdir()
        site = top / folder_name / "site-packages"
        shutil.copytree(str(self.fixture(tree, "site-packages")), str(site), symlinks=True)
        return site

    def test_fix_lines_are_safe_to_paste_into_sh(self):
        self.require_linux_tool("sh runs the Linux build's lines")
        hostile = "v$(touch PWNED)'q'`touch PWNED2`;touch PWNED3"
        site = self.site_packages_in(hostile, "wheels-cu13")
        target = os.path.join(os.path.realpath(str(site.parent)), "cudnn8")
        want = ["-m", "pip", "install", "--no-deps", "--target", target,
                "nvidia-cudnn-cu12==8.9.*", "nvidia-cublas-cu12"]
        r = self.run_ok("env", "--require", "cudnn=8", "--no-defaults", "--root", str(site), rc=4)
        doctor = self.parse_json(self.run_ok("doctor", "--require", "cudnn=8", "--no-defaults",
                                             "--root", str(site), "--format", "json", rc=6))
        doctor_fix = "\n".join("fix: " + p["fix_text"] for p in doctor["problems"])
        for text in (r.stderr, doctor_fix):
            command = self.fix_of(text, "python -m pip install")
            work = self.tmpdir()
            # Pasted into sh, where python only prints what it was given.
            got = subprocess.run(["sh", "-c", 'python() { printf "%s\\0" "$@"; }\n' + command],
                                 cwd=str(work), capture_output=True, timeout=60)
            self.assertEqual(got.returncode, 0, got.stderr)
            self.assertEqual([a.decode() for a in got.stdout.split(b"\0")[:-1]], want, command)
            self.assertEqual(os.listdir(str(work)), [], "pasting %r ran a command" % command)

    def test_the_doctors_inspect_line_is_safe_to_paste_into_sh(self):
        # A planned library the process cannot load: the doctor offers
        # `cudaload inspect FILE`, FILE quoted.
        self.require_linux_tool("sh runs the Linux build's lines")
        driver = self.fixture("fake_cuda", "driver", "libcuda.so.1")
        folder = self.tmpdir() / "v$(touch PWNED)'q'"
        folder.mkdir()
        (folder / "libcudart.so.12").write_bytes(b"not an ELF file")
        env = dict(os.environ, CUDALOAD_DRIVER=str(driver))
        r = subprocess.run(CLI + ["doctor", "--require", "cudart=12", "--no-defaults", "--root",
                                  str(folder), "--probe"], env=env, capture_output=True, text=True,
                           timeout=TIMEOUT_S)
        command = self.fix_of(r.stdout, "cudaload inspect")
        work = self.tmpdir()
        got = subprocess.run(["sh", "-c", 'cudaload() { printf "%s\\0" "$@"; }\n' + command],
                             cwd=str(work), capture_output=True, timeout=60)
        self.assertEqual([a.decode() for a in got.stdout.split(b"\0")[:-1]],
                         ["inspect", os.path.join(os.path.realpath(str(folder)), "libcudart.so.12")],
                         command)
        self.assertEqual(os.listdir(str(work)), [], "pasting %r ran a command" % command)

    def wine_cmd(self, batch_text):
        """Run a batch file in Wine's cmd; its output (a file, never a pipe)."""
        wine = shutil.which("wine64") or (os.path.exists("/usr/lib/wine/wine64") and "/usr/lib/wine/wine64") \
            or shutil.which("wine")
        if not wine:
            self.skipTest("Wine is not installed (apt-get install wine wine64; scripts/test installs it)")
        work = self.tmpdir()
        prefix = (FIXTURES.parent / "wineprefix-cmd") if FIXTURES else work / "prefix"
        env = dict(os.environ, CUDALOAD_WINEPREFIX=str(prefix))
        subprocess.run([str(SOURCE_ROOT / "scripts" / "wine-run"), "--init"], env=env, cwd=str(work),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        batch = work / "fix.cmd"
        out = work / "out.txt"
        batch.write_bytes(b"@echo off\r\n" + batch_text.encode() + b"\r\n")
        env.update(WINEPREFIX=str(prefix), WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=")
        env.pop("DISPLAY", None)
        with open(str(out), "wb") as log:
            subprocess.run([wine, "cmd", "/c", "Z:" + str(batch).replace("/", "\\")], env=env,
                           cwd=str(work), stdout=log, stderr=log, stdin=subprocess.DEVNULL, timeout=300)
        return work, out.read_bytes().decode("utf-8", "replace")

    def test_fix_lines_are_safe_to_paste_into_cmd(self):
        # The Windows tool's fix line, pasted into Wine's cmd with python
        # standing for the print_args child: the words arrive exactly, and
        # & ( ) ^ in the folder's name run nothing (a Windows name holds no
        # < > |).
        if not CLI_IS_WINDOWS:
            self.skipTest("cmd runs the Windows build's lines (the windows tier)")
        if PRINT_ARGS is None or not PRINT_ARGS.is_file():
            self.skipTest("no --print-args child (tests/cli/print_args.c) given")
        hostile = "v&echo PWNED&(x)^y"
        site = self.site_packages_in(hostile, "windows")
        r = self.run_ok("env", "--require", "cudnn=8", "--no-defaults", "--root", to_cli(site), rc=4)
        # No interpreter to name: the py launcher where one is installed,
        # else the program's Python (Wine has none; issue 45).
        pip = "py" if "fix: py -m pip install" in r.stderr else "python"
        command = self.fix_of(r.stderr, pip + " -m pip install")
        # PowerShell would read the same words: double quotes hold nothing it
        # expands.
        self.assertFalse(any(c in command for c in "$`\u201c\u201d\u201e"), command)
        work, out = self.wine_cmd(to_cli(PRINT_ARGS) + command[len(pip):])
        args = [bytes.fromhex(l.split(" ", 1)[1]).decode() for l in out.splitlines()
                if l.startswith("arg ")]
        target = to_cli(site.parent) + "\\cudnn8"
        self.assertEqual(args[:7], ["-m", "pip", "install", "--no-deps", "--target", target,
                                    "nvidia-cudnn-cu12==8.9.*"], out)
        self.assertNotIn("PWNED", out, "pasting %r ran a command" % command)

    def test_a_folder_no_quoting_keeps_literal_is_named_apart_on_windows(self):
        # % and $ are expanded by cmd and PowerShell even in double quotes:
        # such a folder is DIR in the command and named after it.
        if not CLI_IS_WINDOWS:
            self.skipTest("the Windows build's lines (the windows tier; Linux: tests/test_fix_lines.c)")
        site = self.site_packages_in("v$(calc)%PATH%", "windows")
        r = self.run_ok("env", "--require", "cudnn=8", "--no-defaults", "--root", to_cli(site), rc=4)
        pip = "py" if "fix: py -m pip install" in r.stderr else "python"
        command = self.fix_of(r.stderr, pip + " -m pip install")
        self.assertIn("--target DIR ", command)
        self.assertNotIn("$(calc)", command)
        self.assertIn("(DIR: the folder %s\\cudnn8," % to_cli(site.parent), r.stderr)


    # 1. include-dir hands out no folder others can write to.
    def wheels_copy(self):
        """A copy of the platform's wheels (cudart with its include/), and
        that include folder."""
        site = self.tmpdir() / "site-packages"
        shutil.copytree(str(self.fixture("windows" if CLI_IS_WINDOWS else "wheels-cu12", "site-packages")),
                        str(site), symlinks=True)
        return site, site / "nvidia" / "cuda_runtime" / "include"

    def include_dir(self, site, *extra, rc=0):
        return self.run_ok("include-dir", "cudart", "--no-defaults", "--root", to_cli(site), *extra, rc=rc)

    def test_include_dir_refuses_a_folder_others_can_write_to(self):
        site, include = self.wheels_copy()
        self.assertTrue(same_file(self.include_dir(site).stdout.strip(), include))
        os.chmod(str(include), 0o777)
        r = self.include_dir(site, rc=4)
        self.assertEqual(r.stdout, "", r.describe())
        for needle in ("refused", to_cli(include), "writable by", "--allow-writable-roots"):
            self.assertIn(needle, r.stderr, r.describe())
        r = self.include_dir(site, "--allow-writable-roots")
        self.assertTrue(same_file(r.stdout.strip(), include), r.describe())
        # The header a compiler reads first, writable by every user.
        os.chmod(str(include), 0o755)
        os.chmod(str(include / "cuda_runtime.h"), 0o666)
        r = self.include_dir(site, rc=4)
        self.assertIn("cuda_runtime.h", r.stderr, r.describe())
        # The scan report has no include folder for it either.
        doc = self.parse_json(self.run_ok("scan", "--no-defaults", "--root", to_cli(site), "--format", "json"))
        cudart = [l for l in doc["libraries"] if l["name"] == "cudart"]
        self.assertEqual([l["include_dir"] for l in cudart], [None], cudart)

    def test_include_dir_refuses_a_link_into_a_folder_others_can_rename_in(self):
        self.require_linux_tool("links are not tested under Wine")
        site, include = self.wheels_copy()
        open_folder = self.tmpdir() / "open"
        open_folder.mkdir()
        shutil.move(str(include), str(open_folder / "include"))
        os.symlink(str(open_folder / "include"), str(include))
        os.chmod(str(open_folder), 0o777)
        r = self.include_dir(site, rc=4)
        self.assertIn(os.path.realpath(str(open_folder)), r.stderr, r.describe())
        self.assertIn("rename", r.stderr, r.describe())
        # Sticky (/tmp's 1777): nobody can swap what he does not own.
        os.chmod(str(open_folder), 0o1777)
        self.assertTrue(same_file(self.include_dir(site).stdout.strip(), open_folder / "include"))
        # A link into a folder others can add headers to: refused, sticky or not.
        os.chmod(str(open_folder / "include"), 0o1777)
        self.include_dir(site, rc=4)

    # 2. A version is not read from a source others can write to.
    def cudart_scanned(self, site, *extra):
        doc = self.parse_json(self.run_ok("scan", "--no-defaults", "--root", to_cli(site), "--format", "json", *extra))
        return [l for l in doc["libraries"] if l["name"] == "cudart"][0]

    def expect_passed_over_while_writable(self, site, writable):
        """cudart's dist-info version is passed over, and the plan says why,
        while each of `writable` (path, mode) is others' to change."""
        for path, mode in writable:
            os.chmod(str(path), mode)
            lib = self.cudart_scanned(site)
            self.assertNotEqual(lib["version_source"], "dist-info", lib)
            # The plan says which source it passed over, and why, when it
            # reads the version (cudart>=12: a requirement finer than the
            # major; the major alone its file name tells, docs/scan-contract.md).
            r = self.run_ok("env", "--require", "cudart>=12", "--no-defaults", "--root", to_cli(site))
            self.assertIn("warning: ", r.stderr, r.describe())
            self.assertIn("a source of its version was passed over", r.stderr, r.describe())
            self.assertIn(to_cli(path), r.stderr, r.describe())
            self.assertIn("writable by", r.stderr, r.describe())
            if not CLI_IS_WINDOWS:  # a DLL's VERSIONINFO may still tell 12.4
                r = self.run_ok("env", "--require", "cudart>=12.4", "--no-defaults", "--root", to_cli(site), rc=4)
                self.assertIn("passed over", r.stderr, r.describe())
            self.assertEqual(self.cudart_scanned(site, "--allow-writable-roots")["version_source"], "dist-info")
            os.chmod(str(path), 0o755 if path.is_dir() else 0o644)

    def test_versions_are_not_read_from_a_dist_info_others_can_write_to(self):
        # Where a dist-info's files are read, they and its folder are
        # checked: METADATA where the folder's name does not give the
        # version, RECORD where the wheel table leaves the owner open.
        site, _ = self.wheels_copy()
        dist = [d for d in site.iterdir() if d.name.startswith("nvidia_cuda_runtime")][0]
        unnamed = site / "nvidia_cuda_runtime_cu12.dist-info"
        dist.rename(unnamed)
        self.assertEqual(self.cudart_scanned(site)["version"], "12.4.127")
        self.expect_passed_over_while_writable(site, ((unnamed, 0o777), (unnamed / "METADATA", 0o666)))
        unnamed.rename(dist)
        # A dist-info of the same wheel left behind by an interrupted
        # upgrade: two could own libcudart, and RECORD says which.
        stale = site / "nvidia_cuda_runtime_cu12-12.3.52.dist-info"
        stale.mkdir()
        (stale / "RECORD").write_text(stale.name + "/RECORD,,\n")
        self.assertEqual(self.cudart_scanned(site)["version"], "12.4.127")
        self.expect_passed_over_while_writable(site, ((dist, 0o777), (dist / "RECORD", 0o666)))

    def test_a_dist_info_named_for_its_version_speaks_by_its_name(self):
        # Issue 28, item 3: the version is the dist-info folder's name and
        # the wheel table says which wheel ships libcudart, so neither the
        # folder's files nor the folder are read: only site-packages, whose
        # listing gives the name and where only its writers can add or
        # rename a dist-info, is checked (the next test). Others writing to
        # the folder or its files change nothing reported, and a METADATA
        # that says another version is not believed over the name.
        site, _ = self.wheels_copy()
        dist = [d for d in site.iterdir() if d.name.startswith("nvidia_cuda_runtime")][0]
        for path, mode in ((dist, 0o777), (dist / "METADATA", 0o666), (dist / "RECORD", 0o666)):
            os.chmod(str(path), mode)
            lib = self.cudart_scanned(site)
            self.assertEqual((lib["version_source"], lib["version"]), ("dist-info", "12.4.127"), lib)
            r = self.run_ok("env", "--require", "cudart", "--no-defaults", "--root", to_cli(site))
            self.assertNotIn("passed over", r.stderr, r.describe())
            os.chmod(str(path), 0o755 if path.is_dir() else 0o644)
        (dist / "METADATA").write_text("Name: nvidia-cuda-runtime-cu12\nVersion: 12.9.9\n\n")
        (dist / "RECORD").unlink()
        lib = self.cudart_scanned(site)
        self.assertEqual((lib["version_source"], lib["version"]), ("dist-info", "12.4.127"), lib)
        self.assertEqual(lib["version_file"], to_cli(dist / "METADATA"), lib)

    def test_versions_are_not_read_from_a_site_folder_others_can_add_to(self):
        # A sticky site-packages under the root lets nobody swap the library
        # (accepted on the way), but anyone may add a dist-info whose RECORD
        # claims it.
        self.require_linux_tool("the sticky bit is a POSIX mode")
        venv = self.tmpdir()
        site = venv / "lib" / "python3.11" / "site-packages"
        shutil.copytree(str(self.fixture("wheels-cu12", "site-packages")), str(site), symlinks=True)
        self.assertEqual(self.cudart_scanned(venv)["version_source"], "dist-info")
        os.chmod(str(site), 0o1777)
        lib = self.cudart_scanned(venv)
        self.assertNotEqual(lib["version_source"], "dist-info", lib)

    def test_versions_are_not_read_from_headers_others_can_write_to(self):
        self.require_linux_tool("the toolkit fixture is Linux's")
        toolkit = self.tmpdir() / "cuda-12.4"
        shutil.copytree(str(self.fixture("toolkit", "cuda-12.4")), str(toolkit), symlinks=True)
        def cublas():
            doc = self.parse_json(self.run_ok("scan", "--no-defaults", "--root", str(toolkit), "--format", "json"))
            return [l for l in doc["libraries"] if l["name"] == "cublas"][0]
        self.assertEqual((cublas()["version_source"], cublas()["version"]), ("header", "12.4.5"))
        os.chmod(str(toolkit / "targets" / "x86_64-linux" / "include"), 0o777)
        self.assertEqual(cublas()["version_source"], "none", cublas())
        r = self.run_ok("env", "--require", "cublas=12.4", "--no-defaults", "--root", str(toolkit), rc=4)
        self.assertIn("passed over", r.stderr, r.describe())
        self.assertIn("targets/x86_64-linux/include, which is writable by every user", r.stderr, r.describe())


    # 5-9. explain --pid explains what the process maps.
    MAPPER = ("import json, mmap, os, sys, time\n"
              "parts = json.loads(sys.argv[1])\n"
              "fd = os.open(parts[0], os.O_RDONLY | os.O_DIRECTORY)\n"
              "for name in parts[1:-1]:\n"
              "    inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)\n"
              "    os.close(fd)\n"
              "    fd = inner\n"
              "f = os.open(parts[-1], os.O_RDONLY, dir_fd=fd)\n"
              "m = mmap.mmap(f, 0, prot=mmap.PROT_READ)\n"
              "print('ready', flush=True)\n"
              "time.sleep(120)\n")

    def mapping(self, parts, prefix=()):
        """A child that maps the file reached through the folder parts[0]
        and the names after it (a path of any length, names of any bytes);
        stopped at the end of the test."""
        child = subprocess.Popen(list(prefix) + [sys.executable, "-c", self.MAPPER, json.dumps(parts)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        def stop():
            child.kill()
            child.wait()
            child.stdout.close()
            child.stderr.close()
        self.addCleanup(stop)
        ready = child.stdout.readline().strip()
        if ready != b"ready":
            self.fail("the mapping child did not start: %r" % child.stderr.read())
        return child

    def explain_pid(self, pid):
        r = run_cli("explain", "--no-defaults", "--pid", str(pid), "--format", "json")
        self.assertIn(r.rc, (0, 6), r.describe())
        return self.parse_json(r)

    def cuda_objects(self, doc):
        return [(o["path"], o["version"]) for o in doc["objects"] if o["family"]]

    def test_pid_a_mapped_library_replaced_on_disk_is_reported_deleted(self):
        self.require_linux_tool("/proc/PID/maps is Linux's")
        site = self.tmpdir() / "site-packages"
        shutil.copytree(str(self.fixture("wheels-cu12", "site-packages")), str(site), symlinks=True)
        lib = site / "nvidia" / "cudnn" / "lib" / "libcudnn.so.8"
        child = self.mapping([str(lib.parent), lib.name])
        self.assertEqual(self.cuda_objects(self.explain_pid(child.pid)), [(str(lib), "8.9.7.29")])
        # pip upgrades the wheel: a new file under the same name, a new
        # dist-info that claims it.
        data = lib.read_bytes()
        lib.unlink()
        lib.write_bytes(data)
        old = [d for d in site.iterdir() if d.name.startswith("nvidia_cudnn_cu12-")][0]
        new = site / old.name.replace("8.9.7.29", "8.9.9.9")
        old.rename(new)
        (new / "METADATA").write_text((new / "METADATA").read_text().replace("8.9.7.29", "8.9.9.9"))
        doc = self.explain_pid(child.pid)
        objects = self.cuda_objects(doc)
        self.assertEqual([p for p, _ in objects], [str(lib)], doc)
        self.assertNotEqual(objects[0][1], "8.9.9.9", "the replacement's version was reported: %s" % doc)
        self.assertTrue(any("deleted or replaced" in p and str(lib) in p for p in doc["problems"]), doc)

    def test_pid_a_maps_line_longer_than_8_kib_is_read_whole(self):
        self.require_linux_tool("/proc/PID/maps is Linux's")
        base = str(self.tmpdir())
        # Folders making the path about 8,300 bytes, one of them shaped so
        # that a reader cutting the line at 8 KiB would take the rest for a
        # line of its own naming /x.../libcublas.so.12, never mapped.
        parts, length = [base], len(base)
        fake = "00400000-00401000 r--p 00000000 00:00 1 "
        while length + 201 < 8118:
            name = "d" * min(200, 8118 - length - 2)
            parts.append(name)
            length += 1 + len(name)
        parts += [fake, "x" * 100, "libcublas.so.12"]
        fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
        for name in parts[1:-1]:
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        src = self.fixture("wheels-cu12", "site-packages", "nvidia", "cublas", "lib", "libcublas.so.12")
        with open(os.open(parts[-1], os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "wb") as out:
            out.write(src.read_bytes())
        os.close(fd)
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", base]))
        child = self.mapping(parts)
        path = "/".join(parts)
        self.assertGreater(len(path), 8192)
        doc = self.explain_pid(child.pid)
        self.assertEqual([p for p, _ in self.cuda_objects(doc)], [path], doc)

    def test_pid_a_folder_name_holding_a_newline_is_that_folder(self):
        self.require_linux_tool("/proc/PID/maps is Linux's")
        top = self.tmpdir()
        src = self.fixture("wheels-cu12", "site-packages", "nvidia", "cublas", "lib", "libcublas.so.12")
        real = top / "a\nb"
        decoy = top / "a\\012b"  # what maps shows, as a name of its own
        for folder in (real, decoy):
            folder.mkdir()
            shutil.copy2(str(src), str(folder / "libcublas.so.12"))
        child = self.mapping([str(real), "libcublas.so.12"])
        doc = self.explain_pid(child.pid)
        self.assertEqual([p for p, _ in self.cuda_objects(doc)], [str(real / "libcublas.so.12")], doc)

    def test_pid_of_a_process_in_another_mount_namespace(self):
        # A container: its site-packages is another folder under the same
        # path. Its own cuBLAS (12.9.9.9 by its dist-info) is reported, not
        # the host's (12.4.5.8).
        self.require_linux_tool("mount namespaces are Linux's")
        unshare, mount = shutil.which("unshare"), shutil.which("mount")
        if os.geteuid() != 0 or not unshare or not mount:
            self.skipTest("needs root, unshare and mount (util-linux) to make a mount namespace")
        host = self.tmpdir() / "site-packages"
        guest = self.tmpdir() / "site-packages"
        for site in (host, guest):
            shutil.copytree(str(self.fixture("wheels-cu12", "site-packages")), str(site), symlinks=True)
        old = [d for d in guest.iterdir() if d.name.startswith("nvidia_cublas_cu12-")][0]
        new = guest / old.name.replace("12.4.5.8", "12.9.9.9")
        old.rename(new)
        (new / "METADATA").write_text((new / "METADATA").read_text().replace("12.4.5.8", "12.9.9.9"))
        lib = host / "nvidia" / "cublas" / "lib" / "libcublas.so.12"
        probe = subprocess.run([unshare, "--mount", "--propagation", "private", "true"], capture_output=True)
        if probe.returncode != 0:
            self.skipTest("unshare --mount failed here: %s" % probe.stderr.decode().strip())
        child = self.mapping([str(lib.parent), lib.name],
                             prefix=[unshare, "--mount", "--propagation", "private", "--", "sh", "-c",
                                     'mount --bind "$0" "$1" && shift && exec "$@"', str(guest), str(host)])
        try:
            its_root = os.readlink("/proc/%d/root" % child.pid)
        except OSError:
            its_root = "/"
        if its_root != "/":
            self.skipTest("the child's root reads as %s, not / (this runs in a chroot, as the "
                          "debian tier does): its files cannot be named as the process names them"
                          % its_root)
        doc = self.explain_pid(child.pid)
        self.assertEqual(self.cuda_objects(doc), [(str(lib), "12.9.9.9")], doc)



class ScanLooks(CliTestCase):
    """Issue 28, item 3: what a scan asks of the file system, counted (never
    timed) with strace: no probe of a folder below a name the listings it
    made do not hold, and one look at each entry of a dist-info that is no
    link to judge it (issue 33's checks)."""

    def file_calls(self, root):
        return self.traced(["scan", "--no-defaults", "--root", str(root)], "%file")

    def test_a_scan_probes_no_layout_folder_below_a_name_the_root_does_not_hold(self):
        root = self.tmpdir() / "cuda-12.4"
        shutil.copytree(str(self.fixture("toolkit", "cuda-12.4")), str(root), symlinks=True)
        held = set(os.listdir(str(root)))
        layout_names = {"nvidia", "lib", "Lib", "nvvm", "bin", "Library", "cutensor", "cuquantum",
                        "nvpl", "torch", "ctranslate2", "ctranslate2.libs", "onnxruntime"}
        probed = []
        for line in self.file_calls(root):
            m = re.search(r'"%s/([^"]*)".*= -1 ENOENT' % re.escape(str(root)), line)
            if m and m.group(1).split("/")[0] in layout_names - held:
                probed.append(m.group(1))
        self.assertEqual(probed, [], "probed below names %s does not hold" % root)

    def test_a_dist_info_entry_that_is_no_link_is_looked_at_once_to_judge_it(self):
        site = self.tmpdir() / "site-packages"
        shutil.copytree(str(self.fixture("wheels-cu12", "site-packages")), str(site), symlinks=True)
        dist = [d for d in site.iterdir() if d.name.startswith("nvidia_cuda_runtime")][0]
        def named(calls, path):
            return sum(1 for line in calls if '"%s"' % path in line)
        def looks(calls):
            return tuple(named(calls, p) for p in (dist, dist / "METADATA", dist / "RECORD"))
        # Named for its version, and the wheel table's owner of libcudart:
        # nothing in the folder is opened or judged (issue 28, item 3).
        calls = self.file_calls(site)
        self.assertEqual(looks(calls), (0, 0, 0), "\n".join(l for l in calls if str(dist) in l))
        # With a stale dist-info of the same wheel beside it, RECORD says
        # which owns the file: each RECORD opened once to be read, the
        # owner's judged by one lstat that finds no link, the folder by that
        # lstat only; METADATA still unread.
        stale = site / "nvidia_cuda_runtime_cu12-12.3.52.dist-info"
        stale.mkdir()
        (stale / "RECORD").write_text(stale.name + "/RECORD,,\n")
        calls = self.file_calls(site)
        self.assertEqual(looks(calls), (1, 0, 2), "\n".join(l for l in calls if str(dist) in l))
        self.assertEqual(named(calls, stale / "RECORD"), 1, "\n".join(l for l in calls if str(stale) in l))

    # A CUDA 13.0 toolkit as NVIDIA's packages lay it out (the one issue 28
    # measured): its libraries in lib/ beside their development links,
    # lib64 and targets/x86_64-linux/lib links to lib/, and dist-info/ with
    # the 19 wheels it was made of, each {folder: the files of lib/ its
    # RECORD lists}.
    TOOLKIT_13_WHEELS = {
        "nvidia_cublas-13.1.0.3": ["libcublas.so.13", "libcublasLt.so.13", "libnvblas.so.13"],
        "nvidia_cuda_cccl-13.0.85": [],
        "nvidia_cuda_crt-13.0.88": [],
        "nvidia_cuda_culibos-13.0.85": [],
        "nvidia_cuda_cupti-13.0.85": ["libcupti.so.13"],
        "nvidia_cuda_cuxxfilt-13.0.85": [],
        "nvidia_cuda_nvcc-13.0.88": [],
        "nvidia_cuda_nvrtc-13.0.88": ["libnvrtc.so.13"],
        "nvidia_cuda_profiler_api-13.0.85": [],
        "nvidia_cuda_runtime-13.0.96": ["libcudart.so.13"],
        "nvidia_cudnn_cu13-9.19.0.56": ["libcudnn.so.9", "libcudnn_adv.so.9", "libcudnn_cnn.so.9",
                                        "libcudnn_engines_precompiled.so.9",
                                        "libcudnn_engines_runtime_compiled.so.9", "libcudnn_graph.so.9",
                                        "libcudnn_heuristic.so.9", "libcudnn_ops.so.9"],
        "nvidia_cufft-12.0.0.61": ["libcufft.so.12", "libcufftw.so.12"],
        "nvidia_curand-10.4.0.35": ["libcurand.so.10"],
        "nvidia_cusolver-12.0.4.66": ["libcusolver.so.12", "libcusolverMg.so.12"],
        "nvidia_cusparse-12.6.3.3": ["libcusparse.so.12"],
        "nvidia_nccl_cu13-2.28.9": ["libnccl.so.2"],
        "nvidia_nvjitlink-13.0.88": ["libnvJitLink.so.13"],
        "nvidia_nvtx-13.0.85": [],
        "nvidia_nvvm-13.0.88": ["libnvvm.so.4"],
    }

    def toolkit_13(self):
        root = self.tmpdir() / "cuda-13.0"
        lib = root / "lib"
        lib.mkdir(parents=True)
        # Any small library: the scan of a toolkit whose versions the
        # wheels tell reads none.
        elf = self.fixture("wheels-cu13", "site-packages", "nvidia", "cu13", "lib", "libcudart.so.13")
        for folder, files in self.TOOLKIT_13_WHEELS.items():
            dist = root / "dist-info" / (folder + ".dist-info")
            dist.mkdir(parents=True)
            name, version = folder.split("-")
            (dist / "METADATA").write_text("Metadata-Version: 2.4\nName: %s\nVersion: %s\n\n"
                                           % (name.replace("_", "-"), version))
            package = "cudnn" if "cudnn" in folder else "cu13"
            (dist / "RECORD").write_text("".join("nvidia/%s/lib/%s,sha256=x,1\n" % (package, f) for f in files) +
                                         "%s.dist-info/RECORD,,\n" % folder)
            for f in files:
                shutil.copyfile(str(elf), str(lib / f))
                os.symlink(f, str(lib / f[:f.index(".so") + 3]))
        os.symlink("lib", str(root / "lib64"))
        (root / "targets" / "x86_64-linux").mkdir(parents=True)
        os.symlink("../../lib", str(root / "targets" / "x86_64-linux" / "lib"))
        for folder in ("bin", "include", "nvvm/bin", "nvvm/libdevice"):
            (root / folder).mkdir(parents=True)
        return root

    def all_calls(self, args):
        """The system calls of the tool run with args, as strace -f logs
        them, but those that manage memory: a sanitizer's allocator maps
        memory for what a scan allocates (the clang and tsan tiers), which a
        plain build takes from its heap without a call."""
        lines = self.traced(args, "!%memory", env=dict(os.environ, CUDALOAD_CACHE_DISABLE="1"))
        return [l for l in lines
                if not re.match(r"^\d+\s+(\+\+\+|---)", l) and "resumed>" not in l]

    def test_a_toolkit_scan_costs_at_most_one_and_a_half_times_its_floor(self):
        # Issue 28, item 3: what a scan of a toolkit cannot do without is
        # list each layout folder that exists once, whatever spelling or link
        # reaches it (an open, two getdents and a close), and look at each
        # library once; the scan may cost half as much again. Counted, not
        # timed: the system calls beyond those of `cudaload --version`.
        root = self.toolkit_13()
        scan = self.all_calls(["scan", "--no-defaults", "--root", str(root)])
        beyond = len(scan) - len(self.all_calls(["--version"]))
        layout = [root, root / "lib64", root / "lib", root / "targets", root / "targets" / "x86_64-linux" / "lib",
                  root / "nvvm" / "lib64", root / "dist-info"]
        listed = {os.path.realpath(str(p)) for p in layout if p.is_dir()}
        doc = self.parse_json(self.run_ok("scan", "--no-defaults", "--root", str(root), "--format", "json"))
        self.assertEqual(len(doc["libraries"]), 23, doc)
        floor = 4 * len(listed) + len(doc["libraries"])
        self.assertLessEqual(beyond, 1.5 * floor,
                             "%d calls beyond --version, floor %d:\n%s" % (beyond, floor, "\n".join(scan)))

    def test_a_toolkit_library_owned_by_a_wheel_has_its_version(self):
        # libnvvm.so.4, listed first under its link libnvvm.so, which no
        # RECORD names: the wheel table says nvidia-nvvm (CUDA 13) ships
        # it (before: no version, and no CUDA major).
        if CLI_IS_WINDOWS:
            self.skipTest("the toolkit's layout and links are Linux's")
        root = self.toolkit_13()
        doc = self.parse_json(self.run_ok("scan", "--no-defaults", "--root", str(root), "--format", "json"))
        nvvm = [l for l in doc["libraries"] if l["name"] == "nvvm"]
        self.assertEqual([(l["version"], l["version_source"], l["cuda_major"]) for l in nvvm],
                         [("13.0.88", "dist-info", 13)], doc)
        self.assertEqual(nvvm[0]["version_file"],
                         str(root / "dist-info" / "nvidia_nvvm-13.0.88.dist-info" / "METADATA"))
        for l in doc["libraries"]:
            self.assertEqual(l["version_source"], "dist-info", l)


class PlanLooks(CliTestCase):
    """Issue 28, item 3: a plan's cost independent of the number of
    distributions that hold no library it uses, counted (never timed) with
    strace: a plan for cudnn=8 from the cuDNN 8 wheel lists site-packages
    no more often beside 2,000 unrelated distributions than beside none."""

    def listing_calls(self, site):
        # The names store would answer a second run from what the first read.
        lines = self.traced(["env", "--dry-run", "--no-defaults", "--root", str(site),
                             "--require", "cudnn=8"], "getdents64",
                            env=dict(os.environ, CUDALOAD_CACHE_DISABLE="1"))
        return [l for l in lines if "getdents64(" in l]

    def site_beside(self, unrelated):
        site = self.tmpdir() / "lib" / "python3.11" / "site-packages"
        shutil.copytree(str(self.fixture("wheels-cu12", "site-packages")), str(site), symlinks=True)
        for i in range(unrelated):
            (site / ("package%05d-1.0.dist-info" % i)).mkdir()
        return site

    def test_a_plan_lists_no_more_beside_unrelated_distributions(self):
        alone = self.listing_calls(self.site_beside(0))
        crowded = self.listing_calls(self.site_beside(2000))
        self.assertEqual(len(crowded), len(alone), "\n".join(crowded))


class NamesStore(CliTestCase):
    """The names a library holds as text, kept across runs in the user's
    names store (binary/names_store.h): a second run answers from it and
    prints the same bytes; the store is what the answer comes from, not a
    copy beside a search; CUDALOAD_CACHE_DISABLE leaves no store; a store
    that is not one is ignored."""

    def env(self, store, disable=None):
        env = dict(os.environ)
        env.pop("CUDALOAD_CACHE_DISABLE", None)
        env["CUDALOAD_CACHE_PATH"] = to_cli(store)
        if disable is not None:
            env["CUDALOAD_CACHE_DISABLE"] = disable
        return env

    def run_env(self, args, env, rc=None):
        """The run; rc: its exit status, when the test knows it (explain of
        a fixture lists problems, 6, where the driver is absent)."""
        proc = subprocess.run(CLI + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S, env=env)
        r = Result(list(args), proc)
        self.assertIn(r.rc, (0, 6) if rc is None else (rc,), r.describe())
        return r

    def shim(self):
        if CLI_IS_WINDOWS:
            path = self.fixture("windows", "cudnn8", "cudnn_ops_infer64_8.dll")
        else:
            path = self.fixture("wheels-cu13", "site-packages", "nvidia", "cudnn", "lib",
                                "libcudnn.so.9")
        # The store keeps no stamp younger than its file system's
        # granularity and a second (issue 43, item 1): a fixture built a
        # moment ago is searched every time until then.
        st = os.stat(str(path))
        young = max(st.st_mtime, st.st_ctime) + 3.1 - time.time()
        if young > 0:
            time.sleep(young)
        return path

    def test_a_second_run_prints_the_same_from_the_store(self):
        store = self.tmpdir() / "store"
        args = ["explain", "--no-defaults", to_cli(self.shim())]
        first = self.run_env(args, self.env(store))
        kept = store / "names-v2"
        self.assertTrue(kept.is_file(), "no store written\n" + first.describe())
        text = kept.read_text()
        self.assertTrue(text.startswith("cudaload-names 2\n"), text)
        second = self.run_env(args, self.env(store))
        self.assertEqual(second.rc, first.rc)
        self.assertEqual(second.stdout, first.stdout)
        self.assertEqual(second.stderr, first.stderr)
        if not CLI_IS_WINDOWS:
            self.assertIn("libcudnn_adv.so", text)
            self.assertIn("lazy   libcudnn_adv.so.9", first.stdout, first.describe())
            # The answer comes from the store: the shim's line without one
            # name, and the run no longer sees that the shim opens it.
            st = os.stat(str(self.shim()))
            key = "%x %x %x " % (st.st_dev, st.st_ino, st.st_size)
            lines = text.splitlines(True)
            mine = [i for i, line in enumerate(lines) if line.startswith(key)]
            self.assertEqual(len(mine), 1, text)
            words = lines[mine[0]].split()
            kept_names = [w for w in words[6:] if w != "libcudnn_adv.so"]
            lines[mine[0]] = " ".join(words[:5] + [str(len(kept_names))] + kept_names) + "\n"
            kept.write_text("".join(lines))
            third = self.run_env(args, self.env(store))
            self.assertNotIn("lazy   libcudnn_adv.so.9", third.stdout, third.describe())
            # Switched off, the file is searched again.
            fourth = self.run_env(args, self.env(store, disable="1"))
            self.assertEqual(fourth.stdout, first.stdout)

    def test_the_doctor_prints_the_same_from_the_store(self):
        store = self.tmpdir() / "store"
        site = self.fixture("wheels-cu13", "site-packages")
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux wheel tree: checked against a Linux build")
        args = ["doctor", "--no-defaults", "--environment", to_cli(site),
                "--require", "cudnn=9,cublas=13"]
        proc = subprocess.run(CLI + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S, env=self.env(store))
        first = Result(args, proc)
        self.assertTrue((store / "names-v2").is_file(), first.describe())
        proc = subprocess.run(CLI + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S, env=self.env(store))
        second = Result(args, proc)
        self.assertEqual(second.rc, first.rc, second.describe())
        self.assertEqual(second.stdout, first.stdout)

    def test_switched_off_no_store_is_written(self):
        store = self.tmpdir() / "store"
        for value in ("1", "yes"):
            self.run_env(["explain", "--no-defaults", to_cli(self.shim())],
                         self.env(store, disable=value))
            self.assertFalse(store.exists(), "a store was written with CUDALOAD_CACHE_DISABLE=" +
                             value)

    def test_root_keeps_no_store_where_a_users_link_points(self):
        # Issue 43, item 2: root with a user's HOME (a `sudo` that kept it)
        # where the user made ~/.cache a link to a folder of root's.
        if CLI_IS_WINDOWS or not hasattr(os, "geteuid") or os.geteuid() != 0:
            self.skipTest("root's runs on POSIX: this run is not root's")
        home, roots = self.tmpdir(), self.tmpdir()
        os.chown(str(home), 65534, 65534)
        os.symlink(str(roots), str(home / ".cache"))
        os.lchown(str(home / ".cache"), 65534, 65534)
        args = ["explain", "--no-defaults", to_cli(self.shim())]
        clean = self.run_env(args, self.env(self.tmpdir() / "clean", disable="1"))
        for xdg in (None, str(home / ".cache")):
            env = dict(os.environ)
            for name in ("CUDALOAD_CACHE_PATH", "CUDALOAD_CACHE_DISABLE", "XDG_CACHE_HOME"):
                env.pop(name, None)
            env["HOME"] = str(home)
            if xdg:
                env["XDG_CACHE_HOME"] = xdg
            r = self.run_env(args, env)
            self.assertEqual(r.stdout, clean.stdout)
            self.assertEqual(os.listdir(str(roots)), [], "root wrote where the user's link "
                             "points (XDG_CACHE_HOME %s)\n%s" % (xdg, r.describe()))

    def test_a_store_that_is_not_one_is_ignored(self):
        args = ["explain", "--no-defaults", to_cli(self.shim())]
        clean = self.run_env(args, self.env(self.tmpdir() / "clean", disable="1"))
        for content in (b"", b"cudaload-names 2\nnonsense\n", b"\x7fELF\0\0\0" * 1000,
                        b"cudaload-names 2\n" + b"0 " * 100000):
            store = self.tmpdir()
            (store / "names-v2").write_bytes(content)
            if not CLI_IS_WINDOWS:
                os.chmod(str(store), 0o700)
                os.chmod(str(store / "names-v2"), 0o600)
            r = self.run_env(args, self.env(store))
            self.assertEqual(r.stdout, clean.stdout)
        # A store where a folder is expected: the run is the same, no store.
        blocker = self.tmpdir() / "file"
        blocker.write_bytes(b"")
        r = self.run_env(args, self.env(blocker))
        self.assertEqual(r.stdout, clean.stdout)



class KnownBuilds(CliTestCase):
    """Issue 28, item 1: what NVIDIA's released builds open by name comes
    from the table of known builds (lib/binary/known_builds.h) before any
    read: a library whose build identity (its GNU build ID; a PE image's
    link stamp and size) the table holds, at the size of the file the row
    was read from, is answered from the table's row, not searched;
    CUDALOAD_KNOWN_BUILDS_DISABLE=1 searches it again. Issue 43, item 3: a
    file with a borrowed identity at another size is searched. The rows
    themselves are checked against the real files by the
    known_builds_real_files test."""

    # Rows of the table that name neither cuDNN's sub-libraries nor cuBLAS:
    # the real cudart 13.0.96 (libcudart.so.13) and cuBLASLt 12 for Windows
    # (cublasLt64_12.dll).
    ELF_BUILD_ID = "2a12a4a442f0edf6eab8241fdeedb40019c4256c"
    PE_STAMP, PE_IMAGE_SIZE = 0x642C79DF, 0x232BE000

    def env(self, disable=None):
        env = dict(os.environ)
        env["CUDALOAD_CACHE_DISABLE"] = "1"  # the store must not answer
        env.pop("CUDALOAD_KNOWN_BUILDS_DISABLE", None)
        if disable is not None:
            env["CUDALOAD_KNOWN_BUILDS_DISABLE"] = disable
        return env

    def explain(self, path, env):
        args = ["explain", "--no-defaults", to_cli(path)]
        proc = subprocess.run(CLI + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S, env=env)
        r = Result(args, proc)
        self.assertIn(r.rc, (0, 6), r.describe())
        return r

    def shim(self):
        if CLI_IS_WINDOWS:
            return (self.fixture("windows", "cudnn8", "cudnn_ops_infer64_8.dll"),
                    "cublas64_12.dll")
        return (self.fixture("wheels-cu13", "site-packages", "nvidia", "cudnn", "lib",
                             "libcudnn.so.9"), "libcudnn_ops.so.9")

    def row_size(self, identity):
        """The size of the file the table's row of identity was read from."""
        table = (SOURCE_ROOT / "lib" / "binary" / "known_builds_table.h").read_text()
        m = re.search(r'ROW(?:_NONE)?\("%s", (\d+),' % re.escape(identity), table)
        self.assertIsNotNone(m, "the table has no row of %s" % identity)
        return int(m.group(1))

    def as_known_build(self, src, padded=True):
        """A copy of src that carries the identity of a build in the table
        and, padded, the size of the file its row was read from (zeros at
        the end, no part of any section: sparse where the file system
        allows)."""
        data = bytearray(src.read_bytes())
        if data[:4] == b"\x7fELF":
            note = struct.pack("<III", 4, 20, 3) + b"GNU\0"
            at = data.find(note)
            self.assertNotEqual(at, -1, "%s has no GNU build ID note" % src)
            data[at + len(note):at + len(note) + 20] = bytes.fromhex(self.ELF_BUILD_ID)
        else:
            pe = struct.unpack_from("<I", data, 0x3C)[0]
            struct.pack_into("<I", data, pe + 8, self.PE_STAMP)  # TimeDateStamp
            struct.pack_into("<I", data, pe + 24 + 56, self.PE_IMAGE_SIZE)  # SizeOfImage
        copy = self.tmpdir() / src.name
        copy.write_bytes(bytes(data))
        if padded:
            identity = ("gnu:" + self.ELF_BUILD_ID if data[:4] == b"\x7fELF" else
                        "pe:%X%X" % (self.PE_STAMP, self.PE_IMAGE_SIZE))
            size = self.row_size(identity)
            self.assertGreater(size, len(data), "the row's file is larger than the fixture")
            with open(str(copy), "r+b") as f:
                f.truncate(size)
        return copy

    def test_a_known_build_is_answered_from_the_table(self):
        shim, sub = self.shim()
        searched = self.explain(shim, self.env())
        self.assertIn("lazy   " + sub, searched.stdout, searched.describe())
        known = self.as_known_build(shim)
        answered = self.explain(known, self.env())
        # The row names no cuDNN library: what the run says the file opens
        # is the table's, not what its text holds.
        self.assertNotIn("lazy   " + sub, answered.stdout, answered.describe())
        for value in ("1", "yes"):
            again = self.explain(known, self.env(disable=value))
            self.assertIn("lazy   " + sub, again.stdout, again.describe())
        self.assertNotIn("lazy   " + sub, self.explain(known, self.env(disable="0")).stdout)

    def test_a_borrowed_identity_in_a_file_of_another_size_is_searched(self):
        # Issue 43, item 3: a build ID (a PE link stamp and image size) is
        # only what the linker wrote; a small library linked with the
        # identity of a build in the table is not that build. Its own
        # names are reported.
        shim, sub = self.shim()
        borrowed = self.as_known_build(shim, padded=False)
        r = self.explain(borrowed, self.env())
        self.assertIn("lazy   " + sub, r.stdout, r.describe())
        self.assertEqual(r.stdout, self.explain(borrowed, self.env(disable="1")).stdout)

    def test_a_real_build_changed_in_size_is_searched(self):
        # Issue 43, item 3: the real libcudnn.so.9 of cuDNN 9.19.0.56 (the
        # toolkit's) with one embedded name edited, in a file grown by a
        # byte as a tool that rewrites it grows it: searched, so the edited
        # name is what the run sees. An edit that keeps the size is not
        # told without the search (known_builds.h).
        if CLI_IS_WINDOWS:
            self.skipTest("the toolkit's Linux cuDNN")
        self.skip_under_qemu("the toolkit's x86-64 cuDNN is not the emulated tool's machine")
        real = Path("/usr/local/cuda/lib64/libcudnn.so.9")
        if not real.exists():
            self.skipTest("no real cuDNN 9 in /usr/local/cuda/lib64")
        data = real.read_bytes()
        at = data.find(b"libcudnn_adv.so\0")
        if at < 0 or os.path.getsize(str(real.resolve())) != self.row_size(
                "gnu:7b1d6c3f711c8ec527069af720800c366c296ba5"):
            self.skipTest("%s is not cuDNN 9.19.0.56's libcudnn.so.9" % real)
        folder = self.tmpdir()
        same = folder / "same" / "libcudnn.so.9"
        same.parent.mkdir()
        same.write_bytes(data)
        edited = folder / "edited" / "libcudnn.so.9"
        edited.parent.mkdir()
        edited.write_bytes(data[:at] + b"libcudnn_xyz.so" + data[at + 15:] + b"\0")
        answered = self.explain(same, self.env())
        self.assertIn("lazy   libcudnn_adv.so.9", answered.stdout, answered.describe())
        searched = self.explain(edited, self.env())
        self.assertNotIn("lazy   libcudnn_adv.so.9", searched.stdout, searched.describe())
        self.assertEqual(searched.stdout.replace(str(edited), "FILE"),
                         self.explain(edited, self.env(disable="1")).stdout.replace(
                             str(edited), "FILE"))

    def test_a_build_whose_note_segment_patchelf_moved_is_known_too(self):
        # patchelf (NVIDIA's wheels, auditwheel) can leave PT_NOTE pointing
        # at other bytes and the build ID only in its note section: the
        # real cuDNN 9 wheels for CUDA 12 are so.
        if CLI_IS_WINDOWS:
            self.skipTest("ELF notes: a Linux library's")
        shim, sub = self.shim()
        known = self.as_known_build(shim)
        data = bytearray(known.read_bytes())
        self.assertEqual(data[4], 2, "an ELF64 fixture")  # EI_CLASS
        phoff = struct.unpack_from("<Q", data, 0x20)[0]
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        moved = 0
        for i in range(phnum):
            at = phoff + i * phentsize
            if struct.unpack_from("<I", data, at)[0] == 4:  # PT_NOTE
                struct.pack_into("<Q", data, at + 8, 0)  # p_offset: the ELF header
                moved += 1
        self.assertGreater(moved, 0, "the fixture has no PT_NOTE")
        known.write_bytes(bytes(data))
        answered = self.explain(known, self.env())
        self.assertNotIn("lazy   " + sub, answered.stdout, answered.describe())
        searched = self.explain(known, self.env(disable="1"))
        self.assertIn("lazy   " + sub, searched.stdout, searched.describe())

    def test_a_known_build_is_not_read_for_names(self):
        shim, _ = self.shim()
        known = self.as_known_build(shim)
        def bytes_read(env):
            fds, total = set(), 0
            for line in self.traced(["explain", "--no-defaults", str(known)],
                                    "openat,read,pread64", env=env, rcs=(0, 6)):
                m = re.search(r'openat\(.*"([^"]*)".*= (\d+)$', line)
                if m:  # a number an open gives is the known file's until reused
                    (fds.add if m.group(1) == str(known) else fds.discard)(m.group(2))
                m = re.search(r'(?:pread64|read)\((\d+),.*= (\d+)$', line)
                if m and m.group(1) in fds:
                    total += int(m.group(2))
            return total
        searched = bytes_read(self.env(disable="1"))
        answered = bytes_read(self.env())
        # Its headers are read either way; its read-only data only when
        # searched (the fixture's .rodata is most of the file).
        self.assertLess(answered, searched, "known %d bytes, searched %d" % (answered, searched))


class ImportPath(CliTestCase):
    """--for as the interpreter imports (issue 43, item 7; issue 41, item
    4): a venv made by `python -m venv` with the programs fixture's
    distributions copied in; what the real interpreter finds (its
    importlib, never an import) is the oracle cudaload's answer is held
    to. Nothing of the target is run: a .pth file's import line stays
    unrun."""

    def setUp(self):
        if CLI_IS_WINDOWS:
            self.skipTest("the programs tree is a Linux tree (ELF)")
        if len(CLI) > 1:
            self.skipTest("the tool runs under %s: the venvs are this host's" % CLI[0])
        self.tree = self.fixture("programs")
        self.xy = "%d.%d" % sys.version_info[:2]
        base = getattr(sys, "_base_executable", None) or sys.executable
        self.python = os.path.realpath(base)
        self.wheels = self.tree / "wheels" / "site-packages"

    # --- building ------------------------------------------------------

    def install(self, site, name="torchlike", dist="torchlike-2.5.1.dist-info"):
        """The fixture distribution as pip installs it into site."""
        site = Path(site)
        site.mkdir(parents=True, exist_ok=True)
        shutil.copytree(str(self.tree / "site-packages" / name), str(site / name))
        shutil.copytree(str(self.tree / "site-packages" / dist), str(site / dist))
        return site

    def venv(self, where, system_site=False):
        args = [self.python, "-m", "venv", "--without-pip"]
        if system_site:
            args.append("--system-site-packages")
        r = subprocess.run(args + [str(where)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        if r.returncode != 0:
            self.skipTest("python -m venv failed here: %s" % r.stderr.decode(errors="replace"))
        return Path(where), Path(where) / "lib" / ("python" + self.xy) / "site-packages"

    def base_interpreter(self, where):
        """A base interpreter of our own: the real one's standard library
        linked into a prefix whose site-packages is ours, as a Docker
        image's system Python is (NGC, Jetson)."""
        import sysconfig
        stdlib = Path(sysconfig.get_paths()["stdlib"])
        lib = Path(where) / "lib" / ("python" + self.xy)
        lib.mkdir(parents=True)
        for entry in os.listdir(str(stdlib)):
            if entry != "site-packages":
                os.symlink(str(stdlib / entry), str(lib / entry))
        (lib / "site-packages").mkdir()
        (Path(where) / "bin").mkdir()
        os.symlink(self.python, str(Path(where) / "bin" / ("python" + self.xy)))
        return Path(where), lib / "site-packages"

    def rehome(self, venv, home, system_site):
        cfg = venv / "pyvenv.cfg"
        lines = [l for l in cfg.read_text().splitlines()
                 if not l.startswith(("home", "include-system-site-packages"))]
        lines += ["home = %s" % home, "include-system-site-packages = %s" %
                  ("true" if system_site else "false")]
        cfg.write_text("\n".join(lines) + "\n")

    # --- asking --------------------------------------------------------

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items()
               if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH", "PYTHONHOME",
                            "PYTHONNOUSERSITE", "PYTHONUSERBASE")}
        env["HOME"] = str(self.tmpdir())
        env.update(extra)
        return env

    def finds(self, python, module, env):
        """Where the real interpreter finds module ("" for nowhere)."""
        code = ("import importlib.util as u, sys; s = u.find_spec(sys.argv[1]); "
                "print(s.origin if s else '')")
        r = subprocess.run([str(python), "-c", code, module], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        return r.stdout.decode().strip()

    def doctor(self, args, env, rc=None):
        proc = subprocess.run(CLI + ["doctor", "--no-defaults", "--root", str(self.wheels),
                                     "--format", "json"] + args, env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        r = Result(args, proc)
        if rc is not None:
            self.assertEqual(r.rc, rc, r.describe())
        return r

    def requirements(self, r):
        return {q["spec"]: q["from"] for q in self.parse_json(r)["requirements"]}

    # --- the scenarios -------------------------------------------------

    def test_a_venv_with_system_site_packages_has_its_bases_programs(self):
        """PEP 405: include-system-site-packages = true makes the base
        interpreter's site-packages part of the program (it said
        "requires nothing", and exec refused "needs no CUDA library")."""
        base, base_site = self.base_interpreter(self.tmpdir() / "base")
        self.install(base_site)
        venv, _ = self.venv(self.tmpdir() / "venv", system_site=True)
        self.rehome(venv, base / "bin", True)
        env = self.env()
        found = self.finds(venv / "bin" / "python", "torchlike", env)
        self.assertEqual(found, str(base_site / "torchlike" / "__init__.py"))
        got = self.requirements(self.doctor(["--for", str(venv / "bin" / "python")], env))
        self.assertIn("cusparse=12", got)
        self.assertIn(str(base_site / "torchlike" / "lib" / "libtorchlike_cuda.so"),
                      got["cusparse=12"])
        # Activated, by module name: import finds the base's copy.
        active = self.env(VIRTUAL_ENV=str(venv),
                          PATH=str(venv / "bin") + os.pathsep + os.environ.get("PATH", ""))
        got = self.requirements(self.doctor(["--for", "torchlike"], active))
        self.assertIn("nvjitlink=12", got)
        self.assertIn("include-system-site-packages = true", got["cusparse=12"])
        # Without them, neither the interpreter nor cudaload sees it.
        self.rehome(venv, base / "bin", False)
        self.assertEqual(self.finds(venv / "bin" / "python", "torchlike", env), "")
        self.assertNotIn("cusparse=12", self.requirements(
            self.doctor(["--for", str(venv / "bin" / "python")], env)))
        r = self.doctor(["--for", "torchlike"], active, rc=3)
        self.assertIn(str(venv), r.stderr)

    def test_the_user_site_is_searched_as_site_searches_it(self):
        """pip install --user: an interpreter of no venv finds it, a venv
        without system site packages does not, PYTHONNOUSERSITE turns it
        off."""
        home = self.tmpdir()
        user_site = home / ".local" / "lib" / ("python" + self.xy) / "site-packages"
        self.install(user_site)
        bin_dir = self.tmpdir()
        os.symlink(self.python, str(bin_dir / "python3"))
        env = self.env(HOME=str(home), PATH=str(bin_dir) + os.pathsep + "/usr/bin:/bin")
        self.assertEqual(self.finds(bin_dir / "python3", "torchlike", env),
                         str(user_site / "torchlike" / "__init__.py"))
        got = self.requirements(self.doctor(["--for", "torchlike"], env))
        self.assertIn("cusparse=12", got)
        self.assertIn("the user site", got["cusparse=12"])
        got = self.requirements(self.doctor(["--for", str(bin_dir / "python3")], env))
        self.assertIn("cusparse=12", got)
        off = dict(env, PYTHONNOUSERSITE="1")
        self.assertEqual(self.finds(bin_dir / "python3", "torchlike", off), "")
        self.doctor(["--for", "torchlike"], off, rc=3)
        venv, _ = self.venv(self.tmpdir() / "venv")
        self.assertEqual(self.finds(venv / "bin" / "python", "torchlike", env), "")
        self.assertNotIn("cusparse=12", self.requirements(
            self.doctor(["--for", str(venv / "bin" / "python")], env)))

    def test_pythonpath_comes_first(self):
        """pip install --target DIR with PYTHONPATH=DIR: what import takes,
        before the venv's own copy."""
        target = self.install(self.tmpdir() / "target")
        venv, site = self.venv(self.tmpdir() / "venv")
        env = self.env(PYTHONPATH=str(target))
        self.assertEqual(self.finds(venv / "bin" / "python", "torchlike", env),
                         str(target / "torchlike" / "__init__.py"))
        got = self.requirements(self.doctor(["--for", str(venv / "bin" / "python")], env))
        self.assertIn("cusparse=12", got)
        got = self.requirements(self.doctor(["--environment", str(venv), "--for", "torchlike"],
                                            env))
        self.assertIn("PYTHONPATH", got["cusparse=12"])
        self.assertIn(str(target / "torchlike" / "lib"), got["cusparse=12"])

    def test_pth_folders_are_followed_and_their_code_never_run(self):
        venv, site = self.venv(self.tmpdir() / "venv")
        extra = self.install(self.tmpdir() / "extra")
        ran = self.tmpdir() / "ran"
        # site.py stops reading a .pth file at a line that fails: the
        # import line comes last, and does not fail.
        (site / "extra.pth").write_text(
            "# a comment\n\n%s\nimport os; open(%r, 'w').close()\n" % (extra, str(ran)))
        env = self.env()
        got = self.requirements(self.doctor(["--for", str(venv / "bin" / "python")], env))
        self.assertIn("cusparse=12", got)
        got = self.requirements(self.doctor(["--environment", str(venv), "--for", "torchlike"],
                                            env))
        self.assertIn("extra.pth", got["cusparse=12"])
        self.assertFalse(ran.exists(), "cudaload ran a .pth file's import line")
        # The oracle runs it (it is an interpreter): only after cudaload.
        self.assertEqual(self.finds(venv / "bin" / "python", "torchlike", env),
                         str(extra / "torchlike" / "__init__.py"))
        self.assertTrue(ran.exists(), "the interpreter did not run the line: no test")

    def test_a_reset_environment_finds_the_venv_by_its_interpreter(self):
        """sudo, cron and systemd start programs with HOME, PATH reset and
        no VIRTUAL_ENV: the program is then named by its interpreter's
        path, which needs none of them; a module name says why it is not
        found and how to name it."""
        venv, site = self.venv(self.tmpdir() / "venv")
        self.install(site)
        reset = {"PATH": "/usr/bin:/bin", "HOME": str(self.tmpdir())}
        got = self.requirements(self.doctor(["--for", str(venv / "bin" / "python")], reset))
        self.assertIn("cusparse=12", got)
        self.assertIn(str(site), got["cusparse=12"])
        # A venv's lib64, a link to its lib, is one folder, read once.
        self.assertEqual(got["cusparse=12"].count("libtorchlike_cuda.so"), 1, got)
        r = self.doctor(["--for", "torchlike"], reset, rc=3)
        self.assertIn("VIRTUAL_ENV is not set", r.stderr)
        self.assertIn("--for /path/to/venv/bin/python", r.stderr)

    def test_two_distributions_that_own_one_module_are_a_problem(self):
        """onnxruntime installed over onnxruntime-gpu: both dist-infos stay,
        and the files are the CPU build's. The RECORD sizes say so; the fix
        uninstalls it and reinstalls the GPU build."""
        venv, site = self.venv(self.tmpdir() / "venv")
        self.install(site, "ortlike", "ortlike_gpu-1.0.dist-info")
        record = site / "ortlike_gpu-1.0.dist-info" / "RECORD"
        rows = [l.split(",") for l in record.read_text().splitlines()]
        cpu = site / "ortlike-1.0.dist-info"
        cpu.mkdir()
        (cpu / "METADATA").write_text("Metadata-Version: 2.1\nName: ortlike\nVersion: 1.0\n\n")
        own = [r for r in rows if r[0].startswith("ortlike/")]
        (cpu / "RECORD").write_text("".join("%s,%s,%s\n" % tuple(r) for r in own) +
                                    "ortlike-1.0.dist-info/RECORD,,\n")
        # The GPU build's RECORD lists other sizes: its files are gone.
        record.write_text("".join("%s,%s,%s\n" % (r[0], r[1], int(r[2]) + 1)
                                  if r[0].startswith("ortlike/") and r[2] else ",".join(r) + "\n"
                                  for r in rows))
        r = self.doctor(["--environment", str(venv), "--for", "ortlike"], self.env())
        problems = [p for p in self.parse_json(r)["problems"] if "both install" in p["problem"]]
        self.assertEqual(len(problems), 1, r.describe())
        self.assertIn("ortlike 1.0 and ortlike-gpu 1.0 both install ortlike/", problems[0]["problem"])
        self.assertIn("the files there are ortlike 1.0's (its RECORD's size matches the file)",
                      problems[0]["problem"])
        self.assertEqual(problems[0]["kind"], "same-files")
        self.assertEqual([(s["action"], s["argv"]) for s in problems[0]["fix"]],
                         [("command", ["pip", "uninstall", "-y", "ortlike"]),
                          ("install", ["pip", "install", "--force-reinstall", "--no-deps",
                                       "ortlike-gpu==1.0"])])
        # The same said of the venv's interpreter, whose programs they are.
        r = self.doctor(["--for", str(venv / "bin" / "python")], self.env())
        problems = [p for p in self.parse_json(r)["problems"] if "both install" in p["problem"]]
        self.assertEqual(len(problems), 1, r.describe())
        self.assertIn("the files there are ortlike 1.0's", problems[0]["problem"])

    def test_the_message_of_onnxruntime_over_its_gpu_build_gets_the_reinstall(self):
        """Issue 41: onnxruntime's warning that it has no CUDA provider
        names no version. Where the environment holds onnxruntime installed
        over onnxruntime-gpu, doctor --error gives the commands --for gives
        (uninstall it, reinstall the GPU build's own release), not words;
        where it holds only one, the answer stays words (the release and
        CUDA major of a GPU build to install are not known)."""
        warning = ("UserWarning: Specified provider 'CUDAExecutionProvider' is not in available "
                   "provider names.Available providers: 'AzureExecutionProvider, "
                   "CPUExecutionProvider'")
        venv, site = self.venv(self.tmpdir() / "venv")
        (site / "onnxruntime").mkdir(parents=True)
        (site / "onnxruntime" / "__init__.py").write_text("# onnxruntime's shape\n")
        for name, dist in (("onnxruntime-gpu", "onnxruntime_gpu-1.26.0.dist-info"),
                           ("onnxruntime", "onnxruntime-1.26.0.dist-info")):
            (site / dist).mkdir()
            (site / dist / "METADATA").write_text(
                "Metadata-Version: 2.1\nName: %s\nVersion: 1.26.0\n\n" % name)
            (site / dist / "RECORD").write_text("onnxruntime/__init__.py,,\n%s/RECORD,,\n" % dist)
            # pip writes the installer last: onnxruntime's files are the ones there.
            time.sleep(0.01)
            (site / dist / "INSTALLER").write_text("pip\n")

        def cpu_build(env):
            r = self.doctor(["--environment", str(venv), "--error", warning], env)
            found = [p for p in self.parse_json(r)["problems"] if p["kind"] == "cpu-build"]
            self.assertEqual(len(found), 1, r.describe())
            return found[0]

        p = cpu_build(self.env())
        self.assertNotIn("install the program's CUDA build", p["fix_text"])
        self.assertEqual([(st["action"], st["argv"]) for st in p["fix"] if st["action"] != "note"],
                         [("command", ["pip", "uninstall", "-y", "onnxruntime"]),
                          ("install", ["pip", "install", "--force-reinstall", "--no-deps",
                                       "onnxruntime-gpu==1.26.0"])])
        shutil.rmtree(str(site / "onnxruntime_gpu-1.26.0.dist-info"))
        p = cpu_build(self.env())
        self.assertEqual([st["action"] for st in p["fix"]], ["note"], p["fix"])
        self.assertIn("uninstall both, then install onnxruntime-gpu alone", p["fix_text"])

    def test_two_distributions_are_a_problem_when_the_program_needs_nothing(self):
        """onnxruntime (CPU) installed over onnxruntime-gpu: the files of
        the CPU build need no CUDA library, so nothing is required and
        nothing planned; the clash is still the problem the doctor names
        (before, a report with nothing to plan dropped it)."""
        venv, site = self.venv(self.tmpdir() / "venv")
        self.install(site, "ortlike", "ortlike_gpu-1.0.dist-info")
        record = site / "ortlike_gpu-1.0.dist-info" / "RECORD"
        rows = [l.split(",") for l in record.read_text().splitlines()]
        cpu = site / "ortlike-1.0.dist-info"
        cpu.mkdir()
        (cpu / "METADATA").write_text("Metadata-Version: 2.1\nName: ortlike\nVersion: 1.0\n\n")
        # The CPU build's own files: its Python code, no CUDA provider.
        own = [r for r in rows if r[0].startswith("ortlike/") and not r[0].endswith(".so")]
        (cpu / "RECORD").write_text("".join("%s,%s,%s\n" % tuple(r) for r in own) +
                                    "ortlike-1.0.dist-info/RECORD,,\n")
        record.write_text("".join("%s,%s,%s\n" % (r[0], r[1], int(r[2]) + 1)
                                  if r[0].startswith("ortlike/") and r[2] else ",".join(r) + "\n"
                                  for r in rows))
        # The provider the CPU build does not own stays, as pip leaves it.
        r = self.doctor(["--environment", str(venv), "--for", "ortlike"], self.env())
        doc = self.parse_json(r)
        self.assertEqual(doc["requirements"], [], r.describe())
        problems = [p for p in doc["problems"] if p["kind"] == "same-files"]
        self.assertEqual(len(problems), 1, r.describe())
        self.assertEqual([(s["action"], s["argv"]) for s in problems[0]["fix"]],
                         [("command", ["pip", "uninstall", "-y", "ortlike"]),
                          ("install", ["pip", "install", "--force-reinstall", "--no-deps",
                                       "ortlike-gpu==1.0"])])


class Fix(CliTestCase):
    """`cudaload fix` (docs/cli.md, "fix"; issue 42, item 3): the doctor's
    installs run safely, into a venv made here by python3 -m venv, from a
    local wheelhouse of NVIDIA-shaped wheels (tests/fixtures/wheelhouse.py:
    real .whl files holding the fixture trees' ELF files), pip offline
    (PIP_NO_INDEX, PIP_FIND_LINKS); a folder installed beside the
    environment recorded in its cudaload.roots, which a plain doctor then
    finds; and each refusal. Under Wine: the Windows venv's dry run and the
    record read."""

    _base = None  # a venv with pip, made once; each test copies it

    @classmethod
    def tearDownClass(cls):
        if cls._base:
            shutil.rmtree(cls._base, True)

    def linux_venv(self):
        """A fresh venv (a copy of one made once), with pip; its folder."""
        if CLI_IS_WINDOWS or os.name == "nt":
            self.skipTest("a Linux venv and its pip: the native tool")
        self.skip_under_qemu("pip runs the host's Python")
        if Fix._base is None:
            base = Path(tempfile.mkdtemp(prefix="cudaload-fix-base-"))
            r = subprocess.run([sys.executable, "-m", "venv", str(base / "venv")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
            if r.returncode != 0:
                shutil.rmtree(str(base), True)
                self.skipTest("python3 -m venv failed here: %s" % r.stdout.decode()[-300:])
            Fix._base = str(base)
        d = self.tmpdir()
        os.chmod(str(d), 0o755)
        venv = d / "venv"
        shutil.copytree(os.path.join(Fix._base, "venv"), str(venv), symlinks=True)
        return venv

    def site(self, venv):
        sites = sorted(venv.glob("lib/python3.*/site-packages"))
        self.assertEqual(len(sites), 1, sites)
        return sites[0]

    def wheelhouse(self):
        sys.path.insert(0, str(SOURCE_ROOT / "tests" / "fixtures"))
        try:
            import wheelhouse
        finally:
            sys.path.pop(0)
        self.fixture("cudnn8_compat", "libcudnn.so.8")
        house = self.tmpdir() / "wheels"
        wheelhouse.make_wheelhouse(str(FIXTURES), str(house))
        return house

    def env(self, venv=None, house=None, **extra):
        env = {k: v for k, v in os.environ.items()
               if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH", "PYTHONHOME")
               and not k.startswith("PIP_")}
        if venv is not None:
            env["VIRTUAL_ENV"] = str(venv)
            env["PATH"] = str(venv / "bin") + os.pathsep + env.get("PATH", "")
        env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1",
                   PIP_CONFIG_FILE=os.devnull)
        if house is not None:
            env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(house))
        env.update(extra)
        return env

    def torch_and_ctranslate2(self, venv):
        """In the venv: a CUDA 12 torch's wheels (cuDNN 9, cuBLAS 12,
        cudart 12) and ctranslate2 4.4.0 with its bundled cuDNN 8 shim, as
        the voice application of issue 42 has them."""
        site = self.site(venv)
        tree = self.fixture("wheels-cu12-cudnn9", "site-packages")
        for entry in tree.iterdir():
            (shutil.copytree if entry.is_dir() else shutil.copy)(str(entry), str(site / entry.name))
        bundled = self.fixture("preload", "bundled", "site-packages")
        for name in ("ctranslate2", "ctranslate2.libs"):
            shutil.copytree(str(bundled / name), str(site / name))
        info = site / "ctranslate2-4.4.0.dist-info"
        shutil.copytree(str(self.fixture("consumers", "site-packages", info.name)), str(info))
        files = [str(p.relative_to(site)) for name in ("ctranslate2", "ctranslate2.libs")
                 for p in sorted((site / name).iterdir())]
        (info / "RECORD").write_text("".join("%s,,\n" % f for f in files + [info.name + "/RECORD"]))
        return site

    def fix(self, args, env, rc=None, stdin=None):
        proc = subprocess.run(CLI + ["fix"] + list(args), env=env, input=stdin,
                              stdin=None if stdin is not None else subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        r = Result(["fix"] + list(args), proc)
        if rc is not None:
            self.assertEqual(r.rc, rc, r.describe())
        return r

    def test_fix_for_ctranslate2_installs_beside_torch_and_records_it(self):
        """The voice application's case: ctranslate2 4.4 needs cuDNN 8 beside
        torch's cuDNN 9 (both nvidia-cudnn-cu12). fix runs the venv's own
        pip with --only-binary=:all: into a folder beside site-packages,
        records it, and a plain doctor (no --root) then finds cuDNN 8 there
        and torch's cuDNN 9 where it was."""
        venv = self.linux_venv()
        site = self.torch_and_ctranslate2(venv)
        env = self.env(venv, self.wheelhouse())
        r = self.fix(["--for", "ctranslate2", "--yes"], env)
        self.assertIn(r.rc, (0, 6), r.describe())
        target = site.parent / "cudnn8"
        record = site.parent / "cudaload.roots"
        line = [l for l in r.stdout.splitlines() if l.startswith("$ ")]
        self.assertEqual(len(line), 1, r.describe())
        words = shlex.split(line[0][2:])
        self.assertEqual(Path(words[0]).parent, venv / "bin", words)
        self.assertEqual(words[1:6], ["-m", "pip", "install", "--only-binary=:all:", "--no-input"])
        self.assertIn("nvidia-cudnn-cu12==8.9.*", words)
        self.assertEqual(words[words.index("--target") + 1], str(target))
        self.assertTrue((target / "nvidia" / "cudnn" / "lib" / "libcudnn.so.8").is_file())
        # torch's cuDNN 9 is where it was: nothing replaced it.
        self.assertTrue((site / "nvidia" / "cudnn" / "lib" / "libcudnn.so.9").is_file())
        recorded = [l for l in record.read_text().splitlines() if l and not l.startswith("#")]
        self.assertEqual(recorded, [str(target)])
        self.assertEqual(stat.S_IMODE(record.stat().st_mode), 0o644)
        self.assertIn("What is left", r.stdout)
        # A plain doctor, no roots: cuDNN 8 from the recorded folder.
        d = self.parse_json(run_in(["doctor", "--for", "ctranslate2", "--format", "json"], env))
        req = {q["spec"]: q for q in d["requirements"]}
        self.assertTrue(req["cudnn=8"]["satisfied"], req)
        self.assertTrue(req["cudnn=8"]["path"].startswith(str(target)), req)
        self.assertEqual((req["cudnn=8"]["tier"], req["cudnn=8"]["origin"]),
                         ("environment", "cudaload.roots"))
        self.assertFalse([p for p in d["problems"] if p["kind"] == "unsatisfied"], d["problems"])
        d = self.parse_json(run_in(["doctor", "--require", "cudnn=9", "--format", "json"], env))
        self.assertTrue(d["requirements"][0]["path"].startswith(str(site)), d["requirements"])
        # Run again: nothing to install, the record names the folder once.
        r = self.fix(["--for", "ctranslate2", "--yes"], env)
        self.assertNotIn("\n$ ", r.stdout, r.describe())
        self.assertEqual(record.read_text().count(str(target)), 1)

    def test_nothing_left_exits_0(self):
        """A missing cuBLAS 12 installed into the venv itself (no folder of
        its own, nothing to record); with the driver given, nothing is
        left: exit 0."""
        venv = self.linux_venv()
        env = self.env(None, self.wheelhouse())
        args = ["--no-defaults", "--environment", str(venv), "--require", "cublas=12",
                "--root", str(self.fixture("fake_cuda", "driver"))]
        r = self.fix(args + ["--yes"], env, rc=0)
        self.assertIn("--only-binary=:all:", r.stdout)
        self.assertTrue(list(venv.glob("lib/python3.*/site-packages/nvidia/cublas/lib/libcublas.so.12")))
        self.assertFalse(list(venv.glob("lib/python3.*/cudaload.roots")))
        self.fix(args + ["--yes"], env, rc=0)  # nothing to fix now
        run_in(["doctor"] + args, env).rc == 0 or self.fail("doctor still finds problems")

    def test_dry_run_runs_nothing(self):
        venv = self.linux_venv()
        site = self.torch_and_ctranslate2(venv)
        env = self.env(venv, self.wheelhouse())
        r = self.fix(["--for", "ctranslate2", "--dry-run"], env, rc=6)
        self.assertRegex(r.stdout, r"\n   run +\S*python\S* -m pip install --only-binary=:all:")
        self.assertIn("--dry-run: nothing was run.", r.stdout)
        self.assertNotIn("\n$ ", r.stdout)
        self.assertFalse((site.parent / "cudnn8").exists())
        self.assertFalse((site.parent / "cudaload.roots").exists())

    def test_no_terminal_and_no_yes_refuses(self):
        venv = self.linux_venv()
        site = self.torch_and_ctranslate2(venv)
        env = self.env(venv, self.wheelhouse())
        r = self.fix(["--for", "ctranslate2"], env, rc=2)
        self.assertIn("no terminal to ask", r.stderr)
        self.assertIn("--yes", r.stderr)
        self.assertFalse((site.parent / "cudnn8").exists())

    def test_it_asks_at_a_terminal_and_no_runs_nothing(self):
        """At a terminal it asks once; "n" runs nothing (exit 6), "y" runs."""
        import pty
        venv = self.linux_venv()
        site = self.torch_and_ctranslate2(venv)
        env = self.env(venv, self.wheelhouse())
        for answer, rc, installed in ((b"n\n", 6, False), (b"y\n", None, True)):
            main, child = pty.openpty()
            proc = subprocess.Popen(CLI + ["fix", "--for", "ctranslate2"], env=env, stdin=child,
                                    stdout=child, stderr=child)
            os.close(child)
            out = b""
            while b"[y/N]" not in out:
                chunk = os.read(main, 4096)
                self.assertTrue(chunk, out)
                out += chunk
            os.write(main, answer)
            try:
                while True:
                    chunk = os.read(main, 4096)
                    if not chunk:
                        break
                    out += chunk
            except OSError:  # the terminal closed with the child
                pass
            os.close(main)
            code = proc.wait(timeout=300)
            text = out.decode(errors="replace")
            self.assertIn("Run this 1 command? [y/N]", text)
            if rc is not None:
                self.assertEqual(code, rc, text)
                self.assertIn("Nothing was run.", text)
            self.assertEqual((site.parent / "cudnn8").exists(), installed, text)

    def test_a_choice_is_shown_not_run(self):
        """Nothing says which CUDA major the program is built for: one
        install per major, shown as choices, none run, and how to say it."""
        venv = self.linux_venv()
        env = self.env(None, self.wheelhouse())
        r = self.fix(["--no-defaults", "--environment", str(venv), "--require", "cudnn=8",
                      "--yes"], env, rc=6)
        self.assertIn("choice", r.stdout)
        self.assertIn("--require cuda=12", r.stdout)
        self.assertIn("Nothing here for cudaload fix to run", r.stdout)
        self.assertNotIn("\n$ ", r.stdout)
        self.assertFalse(list(venv.glob("lib/python3.*/site-packages/nvidia")))

    def test_a_failing_command_stops_the_fix(self):
        """pip cannot find the wheel: exit 7, the command and its status
        named, nothing done before it."""
        venv = self.linux_venv()
        env = self.env(None, self.wheelhouse())
        r = self.fix(["--no-defaults", "--environment", str(venv), "--require", "cudnn=9,cuda=12",
                      "--yes"], env, rc=7)
        self.assertIn("exited with status 1", r.stderr)
        self.assertIn("stopped at command 1 of 1; nothing was done before it", r.stderr)

    def test_a_step_whose_pip_is_no_environments_is_refused(self):
        """With no environment's interpreter the doctor names the generic
        pip: shown, refused, never run (it could be any Python's)."""
        if CLI_IS_WINDOWS:
            self.skipTest("the Linux pip line")
        env = self.env(None, None, PATH="/nonexistent")
        r = self.fix(["--no-defaults", "--require", "cudart=12", "--yes"], env, rc=6)
        self.assertRegex(r.stdout, r"\n   refused +pip install nvidia-cuda-runtime-cu12")
        self.assertIn("names no environment's interpreter", r.stdout)

    def test_a_system_interpreter_is_refused(self):
        """A Python in no venv or conda environment: fix never installs
        into the system's Python."""
        if CLI_IS_WINDOWS or os.name == "nt":
            self.skipTest("a Linux interpreter's layout")
        d = self.tmpdir()
        prefix = d / "usr"
        (prefix / "bin").mkdir(parents=True)
        (prefix / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
        shutil.copy(sys.executable, str(prefix / "bin" / "python3.11"))
        r = self.fix(["--no-defaults", "--environment",
                      str(prefix / "lib" / "python3.11" / "site-packages"),
                      "--require", "cublas=12", "--yes"], self.env(), rc=6)
        self.assertIn("system interpreter", r.stdout, r.describe())
        self.assertNotIn("\n$ ", r.stdout)

    def test_another_users_environment_is_refused(self):
        """As root into a user's venv (a root-owned file there is one its
        owner cannot remove), and as a user into root's venv: refused, and
        nothing installed."""
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            self.skipTest("needs root: to chown a venv to a test user and run the tool as one")
        venv = self.linux_venv()
        # Its interpreter as a file the test user can see (the venv's links
        # lead to this Python's install, which may be root's alone): never
        # run, since fix refuses first.
        for python in (venv / "bin").glob("python*"):
            python.unlink()
            python.write_bytes(b"not run\n")
        house = self.wheelhouse()
        os.chmod(str(house.parent), 0o755)
        args = ["--no-defaults", "--environment", str(venv), "--require", "cublas=12", "--yes"]
        # A user (nobody) on root's venv.
        try:
            proc = subprocess.run(CLI + ["fix"] + args, env=self.env(None, house, HOME="/nonexistent"),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=300, user=65534, group=65534,
                                  extra_groups=[])
        except PermissionError as e:
            # The checkout in a folder only root may enter (/root): the
            # test user cannot start the tool at all.
            self.skipTest("user 65534 cannot run the tool here: %s" % e)
        r = Result(["fix"] + args, proc)
        if r.rc == 126 or "Permission denied" in r.stderr:
            self.skipTest("user 65534 cannot run the tool here: %s" % r.stderr[:200])
        self.assertEqual(r.rc, 6, r.describe())
        self.assertIn("is owned by uid 0, and cudaload runs as uid 65534", r.stdout)
        self.assertFalse(list(venv.glob("lib/python3.*/site-packages/nvidia")))
        # Root on the user's venv.
        for root, dirs, files in os.walk(str(venv)):
            for name in dirs + files:
                os.lchown(os.path.join(root, name), 65534, 65534)
        os.lchown(str(venv), 65534, 65534)
        r = self.fix(args, self.env(None, house), rc=6)
        self.assertIn("is owned by uid 65534, and cudaload runs as uid 0", r.stdout)
        self.assertFalse(list(venv.glob("lib/python3.*/site-packages/nvidia")))

    # --- Windows (under Wine) ---------------------------------------------

    def windows_venv(self):
        """A Windows venv as python -m venv lays it out (Scripts\\python.exe,
        Lib\\site-packages with pip), torch's cuDNN 9 DLLs in
        nvidia\\cudnn\\bin."""
        if not CLI_IS_WINDOWS:
            self.skipTest("the Windows tool's layout and pip line (the native tool has Linux's)")
        cudnn9 = self.fixture("preload", "windows", "cudnn9")
        d = self.tmpdir()
        venv = d / "venv"
        (venv / "Scripts").mkdir(parents=True)
        (venv / "Scripts" / "python.exe").write_bytes(b"MZ not run")
        (venv / "pyvenv.cfg").write_text("home = C:\\Python312\n")
        site = venv / "Lib" / "site-packages"
        (site / "pip").mkdir(parents=True)
        shutil.copytree(str(cudnn9), str(site / "nvidia" / "cudnn" / "bin"))
        return venv

    def test_windows_dry_run_names_the_venvs_python(self):
        venv = self.windows_venv()
        # The DLLs say no CUDA major: cuda=12 says it (else a choice).
        r = run_in(["fix", "--no-defaults", "--environment", to_cli(venv), "--require",
                    "cudnn=8,cuda=12", "--dry-run"], utf8_env())
        self.assertEqual(r.rc, 6, r.describe())
        run = [l for l in r.stdout.splitlines() if l.startswith("   run ")]
        self.assertEqual(len(run), 1, r.describe())
        self.assertRegex(run[0], r"Scripts\\python\.exe -m pip install --only-binary=:all: "
                                 r"--no-input --no-deps --target \S+\\Lib\\cudnn8 ")
        self.assertIn("cudaload.roots", r.stdout)
        self.assertFalse((venv / "Lib" / "cudnn8").exists())

    def test_windows_record_is_read(self):
        """The venv's Lib\\cudaload.roots names a folder of cuDNN 8 DLLs: a
        plain doctor of the venv plans cudnn=8 from it."""
        venv = self.windows_venv()
        folder = venv / "Lib" / "cudnn8"
        shutil.copytree(str(self.fixture("preload", "windows", "cudnn8")), str(folder))
        (venv / "Lib" / "cudaload.roots").write_text("# test\r\n%s\r\n" % to_cli(folder))
        r = run_in(["doctor", "--no-defaults", "--environment", to_cli(venv), "--require",
                    "cudnn=8", "--format", "json"], utf8_env())
        d = self.parse_json(r)
        req = d["requirements"][0]
        self.assertTrue(req["satisfied"], req)
        self.assertTrue(same_file(req["path"], folder / "cudnn64_8.dll"), req)
        self.assertEqual(req["origin"], "cudaload.roots")
        # A bad line: the record is a problem, naming its line.
        (venv / "Lib" / "cudaload.roots").write_text("relative\\folder\r\n")
        d = self.parse_json(run_in(["doctor", "--no-defaults", "--environment", to_cli(venv),
                                    "--require", "cudnn=8", "--format", "json"], utf8_env()))
        self.assertTrue(any(p["kind"] == "root-unusable" and "line 1" in p["problem"]
                            for p in d["problems"]), d["problems"])


def main():
    global CLI, CLI_IS_WINDOWS, FIXTURES, PRINT_ARGS, TIMEOUT_S
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", required=True, help="the cudaload executable")
    parser.add_argument("--emulator", action="append", default=[],
                        help="wrapper that runs the executable (repeat for its arguments)")
    parser.add_argument("--fixtures", help="the built fixture trees (<build>/fixtures)")
    parser.add_argument("--timeout", type=int, default=TIMEOUT_S, help="seconds per run of the tool")
    parser.add_argument("--print-args", help="a child for exec that prints its arguments (print_args.c)")
    args, rest = parser.parse_known_args()
    cli = os.path.abspath(args.cli)
    if not os.path.isfile(cli):
        print("test_cli.py: the tool %s does not exist (build it first)" % cli, file=sys.stderr)
        return 1
    emulator = [w for w in args.emulator if w]
    # The emulator by its path: a test that runs the tool with a PATH of its
    # own (cudaload fix's scenarios) must still find it.
    if emulator and not os.path.isabs(emulator[0]):
        emulator[0] = shutil.which(emulator[0]) or emulator[0]
    CLI = emulator + [cli]
    CLI_IS_WINDOWS = cli.lower().endswith(".exe")
    TIMEOUT_S = args.timeout
    if args.print_args:
        PRINT_ARGS = Path(os.path.abspath(args.print_args))
    if args.fixtures:
        FIXTURES = Path(os.path.abspath(args.fixtures))
        if not FIXTURES.is_dir():
            print("test_cli.py: fixtures folder %s not found; fixture tests will skip" % FIXTURES)
    else:
        print("test_cli.py: no --fixtures given; fixture tests will skip")
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    result = prog.result
    for test, reason in result.skipped:
        print("SKIPPED %s: %s" % (test.id(), reason))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
