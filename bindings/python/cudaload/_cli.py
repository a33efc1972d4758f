# SPDX-License-Identifier: MIT
"""The ``python -m cudaload`` command line: scan, doctor and probe, with the
reports and exit statuses of the C tool (docs/cli.md):

0 success; 1 internal error (or: this libcudaload lacks the function);
2 usage error; 3 an explicit --root does not exist or cannot be read (scan;
the report is still printed); 4 a requirement has no usable library.
probe: 0 when the GPU is usable, 5 when the answer is "fall back to CPU".
doctor: 0 when the report lists no problem, 6 when it lists one or more.
fix: 0 when nothing is left, 2 with commands to run and no terminal to ask
at and no --yes, 6 when problems are left, 7 when a command it ran failed.

Output is written as the C tool writes it, byte for byte: UTF-8 whatever
the locale. Text (reports and messages for people) shows control
characters and bytes that are not UTF-8 escaped (``\\x1b``, ``\\xe9``).
JSON and YAML keep the exact values: a byte of a name that is not UTF-8 is
the escape ``\\udcXX`` in JSON and ``\\uDCXX`` in YAML (XX its value: the
surrogate that Python's os.fsdecode() gives it), so the report stays valid
and json.loads()/yaml.safe_load() give back a str that os.fsencode() turns
into the exact bytes.
"""

import argparse
import os
import sys
from typing import Any, List, NoReturn, Optional
from . import _constants

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_UNSATISFIED = 4
EXIT_CPU_FALLBACK = 5
EXIT_PROBLEMS = 6
EXIT_FIX_FAILED = 7


class _Parser(argparse.ArgumentParser):
    """argparse with the tool's usage-error format and exit status 2."""

    def error(self, message: str) -> NoReturn:
        _error("cudaload: %s: %s\nTry '%s --help'.\n" % (self.prog.split()[-1], message, self.prog))
        sys.exit(EXIT_USAGE)


def _path(value: str) -> str:
    """A path option's value, made absolute as the C tool does: relative to
    the current folder, and printed absolute from then on."""
    from ._api import _absolute_path
    if not value:
        raise argparse.ArgumentTypeError("the path is empty")
    return _absolute_path(value)


def _common(parser: argparse.ArgumentParser, requirements: bool) -> None:
    parser.add_argument("-r", "--root", action="append", default=[], type=_path,
                        metavar="DIR", help="search DIR first (repeatable; a relative DIR is "
                                            "resolved against the current folder)")
    parser.add_argument("--no-defaults", action="store_true",
                        help="search only the --root folders (not this interpreter's "
                             "site-packages, not the default roots)")
    parser.add_argument("--allow-writable-roots", action="store_true",
                        help="accept folders and libraries other users can write to "
                             "(refused by default: whoever can write there can run "
                             "their own code in the process)")
    if requirements:
        parser.add_argument("-q", "--require", action="append", default=[], metavar="SPEC",
                            help="a requirement, FAMILY[OP VERSION] (cudnn=8, cublas>=12.4); "
                                 "repeatable or comma-joined")


def _utf8_text(value: str) -> str:
    """The text of ``value``'s bytes read as UTF-8 (see _api._utf8_text)."""
    from ._api import _utf8_text as utf8_text
    return utf8_text(value)


def _write(text: str) -> None:
    """Write ``text`` to standard output as the C tool would: as UTF-8
    whatever the locale (sys.stdout.write() would encode it with the
    locale's codec, and refuse a surrogate-escaped byte that is not UTF-8
    under a strict one; the reports written here have none left, but the
    C library's doctor report is passed through as it comes)."""
    data = _utf8_text(text).encode("utf-8", "surrogateescape")
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a replaced sys.stdout (tests): text is all it takes
        sys.stdout.write(data.decode("utf-8", "surrogateescape"))
        return
    sys.stdout.flush()
    buffer.write(data)
    buffer.flush()


def _error(text: str) -> None:
    """A message on standard error, as the C tool writes one (cli_error):
    its line breaks kept, control characters and bytes that are not UTF-8
    from the values in it (paths, spec text) escaped."""
    from ._api import _shown
    sys.stderr.write(_shown(text, keep_newlines=True))


def _report_error(command: str, exc: BaseException) -> int:
    """The message and the exit status the C tool gives for the same
    failure: the user's input (a bad spec, an error message in no known
    form) is a usage error, 2."""
    from ._errors import (BadSpecError, InvalidArgumentError, MissingFunctionError,
                          UnsatisfiedError, UnsupportedError)
    _error("cudaload: %s: %s\n" % (command, exc))
    if isinstance(exc, UnsatisfiedError):
        return EXIT_UNSATISFIED
    if isinstance(exc, MissingFunctionError):
        return EXIT_INTERNAL
    if isinstance(exc, (BadSpecError, InvalidArgumentError, UnsupportedError)):
        return EXIT_USAGE
    return EXIT_INTERNAL


def _scan(args: argparse.Namespace) -> int:
    import cudaload
    try:
        # As the tool: --no-defaults is only the --root folders. Without it
        # this interpreter's site folders are the environment tier, where
        # the tool guesses one (VIRTUAL_ENV, CONDA_PREFIX, python3 on PATH).
        with cudaload.Context(roots=args.root, defaults=not args.no_defaults,
                              site_packages=False if args.no_defaults else None,
                              target=args.target,
                              allow_writable_roots=args.allow_writable_roots) as ctx:
            # An explicit root that does not exist is in the report, as
            # the C tool prints it; the warning below says so and exit 3.
            ctx._scan()
            document = ctx._scan_report(args.format)
            roots = ctx.roots()
    except cudaload.Error as exc:
        return _report_error("scan", exc)
    _write(document)
    status = EXIT_OK
    for root in roots:
        if root.origin == "explicit" and root.status_code != 0:
            _error("cudaload: warning: root %s: %s\n" % (root.path, root.status))
            status = EXIT_INPUT
    return status


def _context(args: argparse.Namespace) -> Any:
    import cudaload
    ctx = cudaload.Context(roots=args.root, defaults=not args.no_defaults,
                           site_packages=False if args.no_defaults else None,
                           allow_writable_roots=args.allow_writable_roots)
    ctx.require(args.require)
    return ctx


def _want_color() -> bool:
    """As the C tool: colour for a terminal, unless NO_COLOR is set."""
    return not os.environ.get("NO_COLOR") and sys.stdout.isatty()


def _doctor(args: argparse.Namespace) -> int:
    import cudaload
    probe = args.probe or args.out_of_process
    try:
        with _context(args) as ctx:
            if args.error is not None:
                ctx.read_error_message(sys.stdin.buffer.read() if args.error == "-" else args.error)
            if args.manifest:
                ctx.load_manifest(args.manifest)
            for program in args.for_:
                ctx.require_for(program)
            color = args.format == "text" and _want_color()
            # The answer first, as the tool prints it; --verbose: every section.
            report = ctx.doctor(args.format, probe=probe, color=color,
                                probe_out_of_process=args.out_of_process,
                                short=not args.verbose,
                                marks=color and (sys.stdout.encoding or "").lower().replace("-", "") == "utf8")
            # The exit status counts the problems, which the JSON report lists.
            as_json = report if args.format == "json" else ctx.doctor(
                "json", probe=probe, probe_out_of_process=args.out_of_process)
    except cudaload.Error as exc:
        if args.manifest and exc.function == "cudaload_load_manifest":
            _error("cudaload: doctor: %s\n" % exc)
            return EXIT_INPUT
        return _report_error("doctor", exc)
    text = str(report)
    _write(text if text.endswith("\n") else text + "\n")
    try:
        problems = as_json.to_dict().get("problems") or []
    except ValueError:
        problems = []
    return EXIT_PROBLEMS if problems else EXIT_OK


def _fix(args: argparse.Namespace) -> int:
    import cudaload
    from ._errors import InvalidArgumentError
    try:
        error = None
        if args.error is not None:
            error = sys.stdin.buffer.read() if args.error == "-" else args.error
        # As the tool: --no-defaults is only the --root folders.
        result = cudaload.fix(args.require, roots=args.root, defaults=not args.no_defaults,
                              site_packages=False if args.no_defaults else None,
                              for_=args.for_ or None, error=error,
                              dry_run=args.dry_run, yes=args.yes)
    except InvalidArgumentError as exc:
        if "no terminal to ask" in str(exc):
            _error("cudaload: fix: %s\n" % exc)
            return EXIT_USAGE
        return _report_error("fix", exc)
    except cudaload.Error as exc:
        return _report_error("fix", exc)
    sys.stdout.flush()
    if result.failed is not None:
        _error("cudaload: fix: %s\n" % result.error)
        done = "; ".join(result.ran)
        _error("cudaload: fix: stopped at command %d of %d; %s\n" % (
            len(result.ran) + 1, len(result.commands),
            "done before it: " + done if done else "nothing was done before it"))
        return EXIT_FIX_FAILED
    return EXIT_OK if result.ok else EXIT_PROBLEMS


def _probe(args: argparse.Namespace) -> int:
    import cudaload
    try:
        with _context(args) as ctx:
            if args.driver:
                ctx.set_driver(args.driver)
            # JSON from the C library's own writer (cudaload_probe_report):
            # the schema of docs/probe.md, the same as the C tool's.
            result, document = ctx._probe(
                args.out_of_process or args.timeout is not None, args.timeout or 0.0,
                _constants.CUDALOAD_FORMAT_JSON if args.format == "json" else None)
    except cudaload.Error as exc:
        return _report_error("probe", exc)
    if document is not None:
        _write(document if document.endswith("\n") else document + "\n")
    else:
        _write(str(result) + "\n")
    return EXIT_OK if result.gpu_ok else EXIT_CPU_FALLBACK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m cudaload``."""
    parser = _Parser(prog="python -m cudaload",
                     description="Find CUDA libraries, diagnose why they do not load, and "
                                 "probe the GPU, through libcudaload's Python bindings.")
    parser.add_argument("-V", "--version", action="store_true", help="print the version and exit")
    parser.add_argument("--backend", choices=("ctypes", "cffi"),
                        help="the binding backend (default: CUDALOAD_BACKEND, else ctypes)")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    scan = sub.add_parser("scan", help="list the CUDA libraries found under the search roots")
    _common(scan, requirements=False)
    scan.add_argument("--target", choices=("host", "linux", "windows"), default="host",
                      help="naming conventions to recognise")
    scan.add_argument("--format", choices=("text", "json", "yaml"), default="text")
    scan.set_defaults(run=_scan)

    doctor = sub.add_parser("doctor", help="the whole diagnosis, with one fix per problem")
    _common(doctor, requirements=True)
    doctor.add_argument("--format", choices=("text", "json", "yaml"), default="text")
    doctor.add_argument("-e", "--error", metavar="TEXT",
                        help="the error message a program printed (- reads standard input); "
                             "its requirements are added and the report says what it means")
    doctor.add_argument("-m", "--manifest", metavar="FILE", type=_path,
                        help="read requirements, roots, policy and probe from a cudaload.yaml")
    doctor.add_argument("--for", dest="for_", action="append", default=[], metavar="PROGRAM",
                        help="require what a program needs, read from its files: a module or "
                             "distribution of this environment (ctranslate2), or the path of a "
                             "binary, an interpreter or a venv")
    doctor.add_argument("--probe", action="store_true", help="also run the GPU probe")
    doctor.add_argument("-v", "--verbose", action="store_true",
                        help="the whole report, in sections (default: the answer first)")
    doctor.add_argument("--out-of-process", action="store_true",
                        help="run the GPU probe in a child process (implies --probe)")
    doctor.set_defaults(run=_doctor)

    fix = sub.add_parser("fix", help="run the installs the doctor's fixes name, safely, and "
                                     "say what is left")
    _common(fix, requirements=True)
    fix.add_argument("-e", "--error", metavar="TEXT",
                     help="the error message a program printed (- reads standard input)")
    fix.add_argument("--for", dest="for_", action="append", default=[], metavar="PROGRAM",
                     help="require what a program needs, read from its files")
    fix.add_argument("-n", "--dry-run", action="store_true", help="print what would run; run nothing")
    fix.add_argument("-y", "--yes", action="store_true",
                     help="run without asking (without it and without a terminal, fix refuses)")
    fix.set_defaults(run=_fix)

    probe = sub.add_parser("probe", help='answer "may I use the GPU?" in stages')
    _common(probe, requirements=True)
    probe.add_argument("--driver", metavar="PATH", type=_path, help="the driver library to open")
    probe.add_argument("--out-of-process", action="store_true",
                       help="run the probe in a child process (killed after --timeout, default 30 s)")
    probe.add_argument("--timeout", type=float, metavar="SECONDS",
                       help="run the probe in a child process killed after SECONDS")
    probe.add_argument("--format", choices=("text", "json"), default="text")
    probe.set_defaults(run=_probe)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.backend:
        os.environ["CUDALOAD_BACKEND"] = args.backend
    try:
        import cudaload
    except ImportError as exc:
        sys.stderr.write("cudaload: %s\n" % exc)
        return EXIT_INTERNAL
    if args.version:
        sys.stdout.write("cudaload %s\n" % cudaload.library_version())
        return EXIT_OK
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    return int(args.run(args))
