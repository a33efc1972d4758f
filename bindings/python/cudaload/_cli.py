"""The ``python -m cudaload`` command line: scan, doctor and probe, with the
reports and exit statuses of the C tool (docs/cli.md):

0 success; 1 internal error (or: this libcudaload lacks the function);
2 usage error; 3 an explicit --root does not exist or cannot be read (scan;
the report is still printed); 4 a requirement has no usable library.
probe: 0 when the GPU is usable, 5 when the answer is "fall back to CPU".
doctor: 0 when the report lists no problem, 6 when it lists one or more.
"""

import argparse
import json
import os
import sys
from typing import Any, List, NoReturn, Optional

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_UNSATISFIED = 4
EXIT_CPU_FALLBACK = 5
EXIT_PROBLEMS = 6


class _Parser(argparse.ArgumentParser):
    """argparse with the tool's usage-error format and exit status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write("cudaload: %s: %s\nTry '%s --help'.\n" % (self.prog.split()[-1], message, self.prog))
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
    if requirements:
        parser.add_argument("-q", "--require", action="append", default=[], metavar="SPEC",
                            help="a requirement, FAMILY[OP VERSION] (cudnn=8, cublas>=12.4); "
                                 "repeatable or comma-joined")


def _yaml_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def _yaml(data: Any, indent: str = "") -> List[str]:
    """A small block-style YAML writer for the scan report (strings single-
    quoted, as the C tool writes them)."""
    lines: List[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, (dict, list)) and value:
                lines.append("%s%s:" % (indent, key))
                lines.extend(_yaml(value, indent + ("" if isinstance(value, list) else "  ")))
            elif isinstance(value, list):
                lines.append("%s%s: []" % (indent, key))
            else:
                lines.append("%s%s: %s" % (indent, key, _yaml_scalar(value)))
    elif isinstance(data, list):
        for item in data:
            sub = _yaml(item, indent + "  ")
            if sub:
                sub[0] = indent + "- " + sub[0][len(indent) + 2:]
            lines.extend(sub)
    return lines


def _report_error(command: str, exc: BaseException) -> int:
    from ._errors import MissingFunctionError, UnsatisfiedError
    sys.stderr.write("cudaload: %s: %s\n" % (command, exc))
    if isinstance(exc, UnsatisfiedError):
        return EXIT_UNSATISFIED
    if isinstance(exc, MissingFunctionError):
        return EXIT_INTERNAL
    return EXIT_INTERNAL


def _scan(args: argparse.Namespace) -> int:
    import cudaload
    try:
        report = cudaload.scan(roots=args.root, defaults=not args.no_defaults,
                               site_packages=[] if args.no_defaults else None,
                               target=args.target)
    except cudaload.NotFoundError as exc:
        # An explicit root that does not exist: as the C tool, print the
        # report anyway, warn below and exit 3.
        if exc.report is None:
            return _report_error("scan", exc)
        report = exc.report
    except cudaload.Error as exc:
        return _report_error("scan", exc)
    if args.format == "json":
        sys.stdout.write(json.dumps(report.scan_dict(), indent=2) + "\n")
    elif args.format == "yaml":
        sys.stdout.write("---\n" + "\n".join(_yaml(report.scan_dict())) + "\n")
    else:
        sys.stdout.write(report.table())
    status = EXIT_OK
    for root in report.roots:
        if root.origin == "explicit" and root.status_code != 0:
            sys.stderr.write("cudaload: warning: root %s: %s\n" % (root.path, root.status))
            status = EXIT_INPUT
    return status


def _context(args: argparse.Namespace) -> Any:
    import cudaload
    ctx = cudaload.Context(roots=args.root, defaults=not args.no_defaults,
                           site_packages=[] if args.no_defaults else None)
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
            if args.manifest:
                ctx.load_manifest(args.manifest)
            report = ctx.doctor(args.format, probe=probe, color=args.format == "text" and _want_color(),
                                probe_out_of_process=args.out_of_process)
            # The exit status counts the problems, which the JSON report lists.
            as_json = report if args.format == "json" else ctx.doctor(
                "json", probe=probe, probe_out_of_process=args.out_of_process)
    except cudaload.Error as exc:
        if args.manifest and exc.function == "cudaload_load_manifest":
            sys.stderr.write("cudaload: doctor: %s\n" % exc)
            return EXIT_INPUT
        return _report_error("doctor", exc)
    text = str(report)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    try:
        problems = as_json.to_dict().get("problems") or []
    except ValueError:
        problems = []
    return EXIT_PROBLEMS if problems else EXIT_OK


def _probe_document(result: "object") -> dict:
    """The probe in the C tool's schema (docs/probe.md), so that scripts can
    read either tool's output."""
    r = result  # a cudaload.Probe
    return {
        "schema_version": 1,
        "verdict": "GPU_OK" if r.gpu_ok else "CPU_FALLBACK",
        "reason": None if r.gpu_ok else r.reason.replace("-", "_"),
        "summary": r.summary,
        "driver": {"path": r.driver_path or None, "version": r.driver_version or None},
        "runtime_version": r.runtime_version or None,
        "devices": [{"name": d.name,
                     "compute_capability": "%d.%d" % (d.capability // 10, d.capability % 10),
                     "memory_mib": d.memory_mib, "uuid": d.uuid} for d in r.devices],
        "stages": [{"name": st.name, "status": st.status, "ms": round(st.ms, 3),
                    "message": st.message} for st in r.stages],
    }


def _probe(args: argparse.Namespace) -> int:
    import cudaload
    try:
        with _context(args) as ctx:
            if args.driver:
                ctx.set_driver(args.driver)
            result = ctx.probe(out_of_process=args.out_of_process or args.timeout is not None,
                               timeout=args.timeout or 0.0)
    except cudaload.Error as exc:
        return _report_error("probe", exc)
    if args.format == "json":
        sys.stdout.write(json.dumps(_probe_document(result), indent=2) + "\n")
    else:
        sys.stdout.write(str(result) + "\n")
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
    doctor.add_argument("-m", "--manifest", metavar="FILE", type=_path,
                        help="read requirements, roots, policy and probe from a cudaload.yaml")
    doctor.add_argument("--probe", action="store_true", help="also run the GPU probe")
    doctor.add_argument("--out-of-process", action="store_true",
                        help="run the GPU probe in a child process (implies --probe)")
    doctor.set_defaults(run=_doctor)

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
