# SPDX-License-Identifier: MIT
"""The API beyond setup(): the GPU probe, the doctor, env_prepend(),
inspect() and isolation (isolated_import(), isolated_open(),
symbol_provider()), with their records.

Split from _api so that the first cudaload.setup() of a process, which
imports _api, does not also read and run this code (module code costs in
proportion to its size: unmarshalling and executing it). ``import cudaload``
imports it on first use of one of its names, and Context.probe() and
Context.doctor() when called.
"""

import _thread
import os
import sys

from . import _constants as C
from ._api import (Context, _load_default, _need, _path_arg, _path_list, _Record, _raise,
                   _shown, _spec_list, _text_arg)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only, never at run time
    import ctypes
    from typing import Any, Dict, Iterable, List, Optional, Union

    from ._api import PathLike, Specs

__all__ = [
    "Probe", "Stage", "Device", "FileInfo", "DoctorReport", "Problem", "FixStep",
    "FixResult", "probe", "doctor", "fix", "env_prepend", "inspect",
    "isolated_import", "isolated_open", "symbol_provider",
]

# --------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------


class Stage(_Record):
    """One stage of the GPU probe."""

    __slots__ = ("name", "status", "message", "ms")

    def __init__(self, name: str, status: str, message: str, ms: float) -> None:
        self.name = name
        self.status = status
        self.message = message
        self.ms = ms


class Device(_Record):
    """A CUDA device the probe saw. ``capability`` is major*10+minor.

    How it runs, as the driver says (None where it did not):
    ``driver_model`` ("WDDM", "TCC"; "not_applicable" on Linux),
    ``kernel_timeout`` (a display watchdog limits its kernels),
    ``compute_mode`` ("default", "prohibited", "exclusive_process",
    "exclusive_thread"), ``integrated``, and ``free_memory_mib`` (device 0
    only, when the probe got a context there)."""

    __slots__ = ("name", "capability", "memory_mib", "uuid", "driver_model", "kernel_timeout",
                 "compute_mode", "integrated", "free_memory_mib")

    def __init__(self, name: str, capability: int, memory_mib: int, uuid: str,
                 driver_model: "Optional[str]" = None, kernel_timeout: "Optional[bool]" = None,
                 compute_mode: "Optional[str]" = None, integrated: "Optional[bool]" = None,
                 free_memory_mib: "Optional[int]" = None) -> None:
        self.name = name
        self.capability = capability
        self.memory_mib = memory_mib
        self.uuid = uuid
        self.driver_model = driver_model
        self.kernel_timeout = kernel_timeout
        self.compute_mode = compute_mode
        self.integrated = integrated
        self.free_memory_mib = free_memory_mib


class Probe(_Record):
    """The GPU probe's answer: ``gpu_ok`` and ``summary`` ("GPU usable: ..."
    or "fall back to CPU, because ..."), the reason, and every stage."""

    __slots__ = ("gpu_ok", "verdict", "reason", "reason_code", "summary", "stages",
                 "driver_path", "driver_version", "runtime_version", "devices")

    def __init__(self, gpu_ok: bool, verdict: str, reason: str, reason_code: int,
                 summary: str, stages: "List[Stage]", driver_path: str, driver_version: int,
                 runtime_version: int, devices: "List[Device]") -> None:
        self.gpu_ok = gpu_ok
        self.verdict = verdict
        self.reason = reason
        self.reason_code = reason_code
        self.summary = summary
        self.stages = stages
        self.driver_path = driver_path
        self.driver_version = driver_version
        self.runtime_version = runtime_version
        self.devices = devices

    def __str__(self) -> str:
        """For people: the driver's strings in the summary and the stage
        messages (device names, error names) shown as the cudaload tool
        shows them (control characters escaped)."""
        lines = [_shown(self.summary)]
        for stage in self.stages:
            lines.append("  %-8s %-8s %8.1f ms  %s" % (stage.name, stage.status, stage.ms,
                                                      _shown(stage.message)))
        return "\n".join(lines)


class FileInfo(_Record):
    """What cudaload_inspect() read from an ELF or PE file's headers."""

    __slots__ = ("path", "format", "machine", "bits", "soname", "needed", "runpath",
                 "rpath", "version")

    def __init__(self, path: str, format: str, machine: str, bits: int,
                 soname: "Optional[str]", needed: "List[str]", runpath: "Optional[str]",
                 rpath: "Optional[str]", version: "Optional[str]") -> None:
        self.path = path
        self.format = format
        self.machine = machine
        self.bits = bits
        self.soname = soname
        self.needed = needed
        self.runpath = runpath
        self.rpath = rpath
        self.version = version


class FixStep(_Record):
    """One step of a problem's fix, followed in order: ``action`` is
    "install", "set-variable", "run-program", "command", "choice" (an
    install for the user to choose, where the note before it holds) or
    "note"; ``argv``
    the command's words as the program receives them (empty for a note),
    ``env`` the variables it sets, ``note`` the words for a person."""

    __slots__ = ("action", "argv", "env", "note")

    def __init__(self, action: str, argv: "List[str]", env: "Dict[str, str]",
                 note: "Optional[str]") -> None:
        self.action = action
        self.argv = argv
        self.env = env
        self.note = note


class Problem(_Record):
    """One problem of the doctor's report, as the library records it: its
    ``kind`` ("unsatisfied", "symbols-missing", ...: docs/doctor.md), the
    sentence the report prints (``text``), its ``facts`` (name -> value)
    and where each came from (``sources``: name -> "machine", "program",
    "message" or "request"), and its ``fix`` as steps."""

    __slots__ = ("kind", "text", "facts", "sources", "fix")

    def __init__(self, kind: str, text: str, facts: "Dict[str, str]",
                 sources: "Dict[str, str]", fix: "List[FixStep]") -> None:
        self.kind = kind
        self.text = text
        self.facts = facts
        self.sources = sources
        self.fix = fix

    def __str__(self) -> str:
        return self.text


def _read_problems(lib: "Any", ctx: "Any") -> "List[Problem]":
    """The records of the last cudaload_doctor() call on ctx."""
    if not lib.has("cudaload_doctor_problem_kind"):
        return []
    def names_of(prefix: str, function: str) -> "Dict[int, str]":
        # Every pinned value of the header's, named by the library's table.
        out = {}
        for constant in dir(C):
            if constant.startswith(prefix):
                value = getattr(C, constant)
                name = lib.call(function, value)
                if name:
                    out[value] = name
        return out
    facts = names_of("CUDALOAD_FACT_", "cudaload_fact_name")
    sources = names_of("CUDALOAD_FROM_", "cudaload_fact_source_name")
    actions = {C.CUDALOAD_FIX_NOTE: "note", C.CUDALOAD_FIX_INSTALL: "install",
               C.CUDALOAD_FIX_SET_VARIABLE: "set-variable",
               C.CUDALOAD_FIX_RUN_PROGRAM: "run-program", C.CUDALOAD_FIX_COMMAND: "command",
               C.CUDALOAD_FIX_CHOICE: "choice"}
    problems = []
    for i in range(lib.call("cudaload_doctor_problem_count", ctx)):
        kind = lib.call("cudaload_doctor_problem_kind", ctx, i)
        values, where = {}, {}
        for fact, name in facts.items():
            value, source = lib.problem_fact(ctx, i, fact)
            if value is not None:
                values[name] = value
                where[name] = sources.get(source, "unknown")
        steps = []
        for s in range(lib.call("cudaload_doctor_fix_step_count", ctx, i)):
            argv, env = [], {}
            while True:
                word = lib.call("cudaload_doctor_fix_step_arg", ctx, i, s, len(argv))
                if word is None:
                    break
                argv.append(word)
            k = 0
            while True:
                pair = lib.call("cudaload_doctor_fix_step_env", ctx, i, s, k)
                if pair is None:
                    break
                name, _, value = pair.partition("=")
                env[name] = value
                k += 1
            steps.append(FixStep(actions.get(lib.call("cudaload_doctor_fix_step_action", ctx, i, s),
                                             "unknown"),
                                 argv, env, lib.call("cudaload_doctor_fix_step_note", ctx, i, s)))
        problems.append(Problem(lib.call("cudaload_problem_kind_name", kind) or "unknown",
                                lib.call("cudaload_doctor_problem_text", ctx, i) or "",
                                values, where, steps))
    return problems


class DoctorReport:
    """cudaload_doctor()'s report. ``str()`` is the text (or JSON/YAML) as
    the command-line tool prints it; ``to_dict()`` parses a JSON report;
    ``problems`` are its problems as records (Problem), in the report's
    order, whatever the format."""

    def __init__(self, text: str, format: str,
                 problems: "Optional[List[Problem]]" = None) -> None:
        self.text = text
        self.format = format
        self.problems = problems if problems is not None else []

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return "DoctorReport(format=%r, %d characters)" % (self.format, len(self.text))

    def to_dict(self) -> "Dict[str, Any]":
        """The JSON report as data (format="json" only)."""
        if self.format != "json":
            raise ValueError("to_dict() needs doctor(format='json')")
        import json
        return json.loads(self.text)


# --------------------------------------------------------------------------
# Probe, doctor, environment, inspect
# --------------------------------------------------------------------------

_FORMATS = {"text": C.CUDALOAD_FORMAT_TEXT, "json": C.CUDALOAD_FORMAT_JSON,
            "yaml": C.CUDALOAD_FORMAT_YAML}


def _read_probe(lib: "Any", handle: "Any") -> "Probe":
    def opt(name: str, *args: "Any") -> "Any":
        return lib.call(name, handle, *args) if lib.has(name) else None

    def name_of(function: str, value: int) -> str:
        # The library's own name of a value (one table, in C), the same the
        # tool and the JSON reports write.
        named = lib.call(function, value) if lib.has(function) else None
        return named or "unknown(%s)" % value

    verdict = opt("cudaload_probe_verdict")
    reason = opt("cudaload_probe_reason") or 0
    stages = []
    for i in range(opt("cudaload_probe_stage_count") or 0):
        status = opt("cudaload_probe_stage_status", i)
        stages.append(Stage(opt("cudaload_probe_stage_name", i) or "",
                            name_of("cudaload_probe_stage_status_name", status),
                            opt("cudaload_probe_stage_message", i) or "",
                            float(opt("cudaload_probe_stage_ms", i) or 0.0)))
    def yes_no(name: str, i: int) -> "Optional[bool]":
        value = opt(name, i)
        return None if value is None or value < 0 else bool(value)

    def named(name: str, function: str, i: int) -> "Optional[str]":
        # The library's names (one table, in C); unknown is None.
        value = opt(name, i)
        text = lib.call(function, value) if value is not None and lib.has(function) else None
        return None if text in (None, "unknown") else text

    devices = []
    for i in range(opt("cudaload_probe_device_count") or 0):
        free_mib = opt("cudaload_probe_device_free_mib", i)
        devices.append(Device(
            opt("cudaload_probe_device_name", i) or "",
            opt("cudaload_probe_device_capability", i) or 0,
            int(opt("cudaload_probe_device_memory_mib", i) or 0),
            opt("cudaload_probe_device_uuid", i) or "",
            driver_model=named("cudaload_probe_device_driver_model",
                               "cudaload_probe_driver_model_name", i),
            kernel_timeout=yes_no("cudaload_probe_device_kernel_timeout", i),
            compute_mode=named("cudaload_probe_device_compute_mode",
                               "cudaload_probe_compute_mode_name", i),
            integrated=yes_no("cudaload_probe_device_integrated", i),
            free_memory_mib=None if free_mib is None or free_mib < 0 else int(free_mib)))
    return Probe(
        gpu_ok=verdict == C.CUDALOAD_GPU_OK,
        verdict="gpu" if verdict == C.CUDALOAD_GPU_OK else "cpu",
        reason=name_of("cudaload_probe_reason_name", reason), reason_code=reason,
        summary=opt("cudaload_probe_summary") or "", stages=stages,
        driver_path=opt("cudaload_probe_driver_path") or "",
        driver_version=opt("cudaload_probe_driver_version") or 0,
        runtime_version=opt("cudaload_probe_runtime_version") or 0,
        devices=devices)


def probe(require: "Specs" = (), roots: "Optional[Iterable[PathLike]]" = None,
          site_packages: "Union[Iterable[PathLike], None, bool]" = None,
          defaults: bool = True, out_of_process: bool = False,
          timeout: float = 0.0, driver: "Optional[PathLike]" = None) -> "Probe":
    """Answer "may I use the GPU?": the staged probe of cudaload_probe_run().
    ``require`` is a str or an iterable of str, as for setup();
    ``roots`` (explicit tier), ``site_packages`` (environment tier; None:
    this interpreter's site folders, False: none) and ``defaults`` (the C
    library's default roots; False keeps the site folders) choose where the
    required libraries are looked for, as for scan() and Context(); ``driver`` is the driver library to open (str,
    bytes or os.PathLike, or None). Relative paths are resolved against the
    current folder. A root that does not exist is not an error here (the
    libraries are looked for elsewhere, as ``cudaload probe`` does). Raises
    MissingFunctionError if this libcudaload has no probe; TypeError and
    InvalidArgumentError for arguments as setup() does."""
    specs = _spec_list(require)
    with Context(roots, site_packages, defaults) as ctx:
        ctx.require(specs)
        if driver is not None:
            ctx.set_driver(driver)
        return ctx.probe(out_of_process, timeout)


def doctor(require: "Specs" = (), roots: "Optional[Iterable[PathLike]]" = None,
           site_packages: "Union[Iterable[PathLike], None, bool]" = None,
           defaults: bool = True, format: str = "text", probe: bool = False,
           color: bool = False, probe_out_of_process: bool = False, *,
           for_: "Any" = None, error: "Optional[str]" = None,
           short: bool = False) -> "DoctorReport":
    """The whole diagnosis, as ``cudaload doctor`` prints it:
    ``print(cudaload.doctor())``. ``require`` is a str or an iterable of
    str, as for setup(); ``roots`` (explicit tier), ``site_packages``
    (environment tier; None: this interpreter's site folders, False: none)
    and ``defaults`` (the C library's default roots; False keeps the site
    folders) choose the folders searched, as for scan() and Context() (a
    relative root is resolved against the current folder); a root that does not
    exist is one of the problems the report lists, as ``cudaload doctor``
    does. ``format`` is the str "text", "json" or "yaml". ``error`` is the
    error message a program printed (a str, or bytes as a log file holds
    them; a traceback or a whole log is fine): its requirements are added
    and the report says what it means here (Context.read_error_message();
    UnreadableMessageError, a BadSpecError listing the forms understood,
    when it holds none). ``for_`` names the program (a module
    of this environment, or a path) whose needs are the requirements, as
    ``cudaload doctor --for``; NotFoundError when it is none. ``short``:
    the text's short form, the answer first on one screen, as the tool
    prints it without --verbose (the records are the same: ``problems``
    of the report). Raises
    MissingFunctionError if this libcudaload has no doctor; TypeError and
    InvalidArgumentError for arguments as setup() does."""
    specs = _spec_list(require)
    with Context(roots, site_packages, defaults) as ctx:
        if error is not None:
            ctx.read_error_message(error)
        ctx.require(specs)
        ctx.require_for(for_)
        return ctx.doctor(format, probe, color, probe_out_of_process, short=short)


class FixResult(_Record):
    """What cudaload.fix() did. ``plan`` is the library's report of what
    the fix does with each step of each problem (cudaload_fix_report(): as
    ``cudaload fix`` prints it); ``commands`` the command lines it would
    run, in order; ``ran`` those it ran and that succeeded; ``failed`` the
    one that failed (it stopped there), with ``error`` the library's
    message (its exit status), else None; ``left`` the doctor's report
    after the fix (DoctorReport, short text; None when nothing ran: a dry
    run, an answer no, nothing to run); ``ok``: no problem is left."""

    __slots__ = ("plan", "commands", "ran", "failed", "error", "left", "ok")

    def __init__(self, plan: str, commands: "List[str]", ran: "List[str]",
                 failed: "Optional[str]", error: "Optional[str]",
                 left: "Optional[DoctorReport]", ok: bool) -> None:
        self.plan = plan
        self.commands = commands
        self.ran = ran
        self.failed = failed
        self.error = error
        self.left = left
        self.ok = ok

    def __str__(self) -> str:
        return self.plan


def _fix_runnable(lib: "Any", ctx: "Any") -> "List[Any]":
    """(i, s, line) of every step of ctx's last doctor report that
    cudaload fix runs, in order (the library judges), each command once."""
    steps = []
    for i in range(lib.call("cudaload_doctor_problem_count", ctx)):
        for s in range(lib.call("cudaload_doctor_fix_step_count", ctx, i)):
            if lib.call("cudaload_fix_step_check", ctx, i, s) == C.CUDALOAD_OK:
                line = lib.call("cudaload_fix_step_command", ctx, i, s)
                if all(line != seen for _, _, seen in steps):  # two problems, one fix
                    steps.append((i, s, line))
    return steps


def fix(require: "Specs" = (), roots: "Optional[Iterable[PathLike]]" = None,
        site_packages: "Union[Iterable[PathLike], None, bool]" = None,
        defaults: bool = True, *, for_: "Any" = None, error: "Optional[str]" = None,
        dry_run: bool = False, yes: bool = False) -> "FixResult":
    """Run the installs the doctor's fixes name, as ``cudaload fix`` does,
    for the same arguments as doctor(): the diagnosis, then the library's
    report of what the fix does with each step (printed on sys.stdout),
    then, unless ``dry_run``, the steps it runs, each printed before it
    runs (pip's own output goes to this process's standard output and
    error), and the doctor again. Safe by construction: only an
    environment's own pip installing NVIDIA's wheels the catalog names,
    with --only-binary=:all:, into a venv or conda environment this user
    owns and no other user can write to (docs/cli.md, "fix"); a folder it
    installs into beside the environment is recorded in its
    cudaload.roots, so that a plain setup() finds it. It asks before
    running (input(), at a terminal) unless ``yes``; with no terminal and
    without ``yes`` it raises InvalidArgumentError and runs nothing. It
    stops at the first command that fails: FixResult.failed. Raises as
    doctor() does for the arguments (``for_``: a program, or a list of
    them); MissingFunctionError when this libcudaload has no fix."""
    specs = _spec_list(require)
    lib = _load_default()
    for name in ("cudaload_fix_report", "cudaload_fix_step_check",
                 "cudaload_fix_step_command", "cudaload_fix_step_run"):
        _need(lib, name)
    with Context(roots, site_packages, defaults) as ctx:
        if error is not None:
            ctx.read_error_message(error)
        ctx.require(specs)
        for program in (for_ if isinstance(for_, (list, tuple)) else [for_]):
            ctx.require_for(program)
        ctx.doctor("text", short=True)
        status, plan = lib.fix_report(ctx.handle, C.CUDALOAD_FORMAT_TEXT)
        if status != C.CUDALOAD_OK or plan is None:
            _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_fix_report")
        assert plan is not None
        problems = lib.call("cudaload_doctor_problem_count", ctx.handle)
        steps = _fix_runnable(lib, ctx.handle) if problems else []
        commands = [line for _, _, line in steps]
        out = sys.stdout
        out.write(plan)
        if not problems:
            return FixResult(plan, [], [], None, None, None, True)
        if dry_run or not steps:
            out.write("\n%s\n" % ("dry run: nothing was run." if dry_run else
                                   "Nothing here for cudaload fix to run: the steps "
                                   "above are yours."))
            return FixResult(plan, commands, [], None, None, None, False)
        if not yes:
            if not (sys.stdin is not None and sys.stdin.isatty() and out.isatty()):
                from ._errors import InvalidArgumentError
                raise InvalidArgumentError(
                    "cudaload.fix: %d command%s to run, and no terminal to ask before "
                    "running %s: nothing was run; pass yes=True to run %s, or dry_run=True"
                    % (len(steps), "" if len(steps) == 1 else "s",
                       "it" if len(steps) == 1 else "them", "it" if len(steps) == 1 else "them"))
            out.write("\nRun %s %d command%s? [y/N] " % ("this" if len(steps) == 1 else "these",
                                                         len(steps), "" if len(steps) == 1 else "s"))
            out.flush()
            if input().strip().lower() not in ("y", "yes"):
                out.write("Nothing was run.\n")
                return FixResult(plan, commands, [], None, None, None, False)
        ran = []
        for i, s, line in steps:
            out.write("\n$ %s\n" % _shown(line))
            out.flush()  # before pip writes to the same stream
            sys.stderr.flush()
            if lib.call("cudaload_fix_step_run", ctx.handle, i, s) != C.CUDALOAD_OK:
                message = lib.call("cudaload_last_error") or ""
                return FixResult(plan, commands, ran, line, message, None, False)
            ran.append(line)
        ctx._scan()  # the fix changed what is on disk
        left = ctx.doctor("text", short=True)
        out.write("\nWhat is left (the doctor with the same arguments):\n")
        out.write(str(left))
        return FixResult(plan, commands, ran, None, None, left, not left.problems)


def explain(files: "Optional[Iterable[PathLike]]" = None, pid: "Optional[int]" = None,
            require: "Specs" = (), roots: "Optional[Iterable[PathLike]]" = None,
            site_packages: "Union[Iterable[PathLike], None, bool]" = None,
            defaults: bool = True, global_scope: bool = False,
            format: str = "dict") -> "Any":
    """Who binds to what, as ``cudaload explain`` shows it. ``files`` (a
    list of str, bytes or os.PathLike paths; a relative one is resolved
    against the current folder) are explained as if each were opened into
    a new process with this environment: what the loader would open for
    them, by which rule (docs/loader.md), the versions, where their CUDA
    symbols bind, and the problems. With ``require`` (a str or an iterable
    of str, as for setup()) the plan is applied first, as if preloaded;
    ``global_scope`` puts it in the global scope (RTLD_GLOBAL). ``pid``
    instead explains a running process: the CUDA libraries it has mapped.
    ``roots``, ``site_packages`` and ``defaults`` choose the folders
    searched for versions and the plan, as for scan(). ``format``: "dict"
    (the JSON report as a dict: ``{"schema_version", "pid", "objects",
    "problems"}``), or the str "text", "json", "yaml" or "dot". Nothing is
    loaded. Raises NotFoundError for a file or process that does not
    exist, ReadError when the process may not be looked at."""
    import json
    lib = _load_default()
    for name in ("cudaload_explain_files", "cudaload_explain_report"):
        _need(lib, name)
    if pid is not None and (isinstance(pid, bool) or not isinstance(pid, int)):
        raise TypeError("pid: expected an int, got %s" % type(pid).__name__)
    if pid is not None and pid <= 0:
        raise ValueError("pid: must be a positive process id, got %d" % pid)
    paths = _path_list(files, "files") if files is not None else []
    if (pid is None) == (not paths):
        raise TypeError("explain: give files or pid, one of the two")
    formats = {"dict": C.CUDALOAD_FORMAT_JSON, "json": C.CUDALOAD_FORMAT_JSON,
               "text": C.CUDALOAD_FORMAT_TEXT, "yaml": C.CUDALOAD_FORMAT_YAML,
               "dot": C.CUDALOAD_FORMAT_DOT}
    if not isinstance(format, str) or format not in formats:
        raise ValueError("format %r: expected dict, text, json, yaml or dot" % (format,))
    specs = _spec_list(require)
    with Context(roots, site_packages, defaults) as ctx:
        ctx.require(specs)
        status, handle = lib.explain(ctx.handle, paths,
                                     C.CUDALOAD_PRELOAD_GLOBAL if global_scope else 0,
                                     pid or 0)
        if status != C.CUDALOAD_OK or handle is None:
            _raise(lib, status or C.CUDALOAD_E_NO_MEMORY,
                   "cudaload_explain_pid" if pid else "cudaload_explain_files")
        try:
            status, text = lib.explain_report(handle, formats[format])
        finally:
            lib.call("cudaload_explain_free", handle)
        if status != C.CUDALOAD_OK or text is None:
            _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_explain_report")
    return json.loads(text) if format == "dict" else text


def env_prepend(require: "Specs", roots: "Optional[Iterable[PathLike]]" = None,
                site_packages: "Union[Iterable[PathLike], None, bool]" = None,
                defaults: bool = True) -> str:
    """Put the planned libraries' folders first on the search-path variable
    (LD_LIBRARY_PATH on Linux, PATH on Windows) of this process, both in the
    C environment (cudaload_env_apply) and in ``os.environ`` (a snapshot a
    C-level setenv leaves stale). Returns the new value.

    On Linux this reaches the processes started afterwards (subprocess),
    not this process's own loader, which read LD_LIBRARY_PATH at start: use
    setup() for this process. On Windows it changes what later
    LoadLibrary("name.dll") calls search. ``require`` is a str or an
    iterable of str, as for setup(). ``roots`` (explicit tier),
    ``site_packages`` (environment tier; None: this interpreter's site
    folders, False: none) and ``defaults`` (the C library's default roots;
    False keeps the site folders) are those of scan(): a relative root is
    resolved against the current folder, and one that does not exist
    raises NotFoundError. TypeError and InvalidArgumentError for arguments
    as setup() does.
    """
    specs = _spec_list(require)
    with Context(roots, site_packages, defaults) as ctx:
        ctx.require(specs)
        ctx.scan()
        ctx.plan()
        name = ctx.env_name()
        value = ctx.env_compose(os.environ.get(name))
        ctx.env_apply()
    os.environ[name] = value
    return value


def inspect(path: "PathLike") -> "FileInfo":
    """Read an ELF or PE file's headers without loading it. ``path`` is a
    str, bytes or os.PathLike (TypeError otherwise; InvalidArgumentError for
    a NUL character); FileInfo.path is it as a str (os.fsdecode() of bytes,
    so os.fsencode() gives them back)."""
    lib = _load_default()
    file_path = _path_arg(path, "path")
    status, handle = lib.inspect(file_path)
    if status != C.CUDALOAD_OK or handle is None:
        _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_inspect", file_path)
    try:
        def get(name: str, *args: "Any") -> "Any":
            return lib.call(name, handle, *args)
        return FileInfo(
            path=file_path, format=get("cudaload_file_format") or "",
            machine=get("cudaload_file_machine") or "", bits=get("cudaload_file_bits"),
            soname=get("cudaload_file_soname") or None,
            needed=[get("cudaload_file_needed", i) or ""
                    for i in range(get("cudaload_file_needed_count"))],
            runpath=get("cudaload_file_runpath") or None,
            rpath=get("cudaload_file_rpath") or None,
            version=get("cudaload_file_version") or None)
    finally:
        lib.call("cudaload_file_close", handle)


# --------------------------------------------------------------------------
# Isolation
# --------------------------------------------------------------------------

_dlopen_lock = _thread.RLock()


class _IsolatedImport:
    """The context manager isolated_import() returns (a class rather than
    contextlib.contextmanager, which import cudaload would have to import).
    Like contextlib's, it also decorates a function."""

    __slots__ = ("_previous", "_locked")

    def __init__(self) -> None:
        self._previous: Optional[int] = None
        self._locked = False

    def __enter__(self) -> None:
        if sys.platform == "win32":
            return
        deepbind = getattr(os, "RTLD_DEEPBIND", 0)
        if not deepbind or not hasattr(sys, "setdlopenflags"):
            from ._errors import UnsupportedError
            raise UnsupportedError("isolated_import: this platform has no RTLD_DEEPBIND",
                                   status=C.CUDALOAD_E_UNSUPPORTED, status_text="not supported")
        _dlopen_lock.acquire()
        self._locked = True
        try:
            self._previous = sys.getdlopenflags()
            sys.setdlopenflags((self._previous | deepbind | os.RTLD_NOW)
                               & ~getattr(os, "RTLD_GLOBAL", 0))
        except BaseException:
            self._locked = False
            _dlopen_lock.release()
            raise

    def __exit__(self, *exc: "Any") -> None:
        if not self._locked:
            return
        try:
            if self._previous is not None:
                sys.setdlopenflags(self._previous)
        finally:
            self._locked = False
            _dlopen_lock.release()

    def __call__(self, function: "Any") -> "Any":
        import functools

        @functools.wraps(function)
        def isolated(*args: "Any", **kwargs: "Any") -> "Any":
            with _IsolatedImport():
                return function(*args, **kwargs)
        return isolated


def isolated_import() -> "_IsolatedImport":
    """Import extension modules with RTLD_DEEPBIND (Linux), so a module
    linked to one cuDNN major binds that major's symbols even while another
    major sits in the global symbol scope::

        with cudaload.isolated_import():
            import ctranslate2   # binds libcudnn.so.8's symbols

    It sets ``sys.setdlopenflags`` for the duration of the block (the flags
    are interpreter-wide: do not import concurrently from other threads).
    On Windows, DLL imports bind per DLL name and nothing needs changing:
    the block runs as is. Elsewhere without RTLD_DEEPBIND (macOS) it raises
    UnsupportedError. DEEPBIND caveats (README): glibc only, AddressSanitizer
    refuses it, and the module binds its own copies of interposed symbols
    (malloc replacements).
    """
    return _IsolatedImport()


def isolated_open(path: "PathLike") -> "ctypes.CDLL":
    """Open a shared library with cudaload_dlopen_isolated() (Linux:
    RTLD_DEEPBIND) and return it as a ctypes.CDLL. ``path`` is a str, bytes
    or os.PathLike (TypeError otherwise; InvalidArgumentError for a NUL
    character, at which the C string would end)."""
    import ctypes
    lib = _load_default()
    file_path = _path_arg(path, "path")
    handle = lib.call("cudaload_dlopen_isolated", file_path)
    if handle is None:
        _raise(lib, C.CUDALOAD_E_LOAD_FAILED, "cudaload_dlopen_isolated", file_path)
    return ctypes.CDLL(file_path, handle=lib.pointer_value(handle))


def symbol_provider(library: "Union[ctypes.CDLL, int]", symbol: str) -> "Optional[str]":
    """The file that provides ``symbol`` (a str) to a loaded library (a
    ctypes.CDLL or a dlopen handle as an int), as the dynamic loader
    resolves it; None if none. TypeError for other types,
    InvalidArgumentError for a NUL character in ``symbol``."""
    lib = _load_default()
    _text_arg(symbol, "symbol")
    if isinstance(library, bool) or not (isinstance(library, int)
                                         or hasattr(library, "_handle")):
        raise TypeError("library: expected a ctypes.CDLL or a dlopen handle (int), got %s"
                        % type(library).__name__)
    if isinstance(library, int):
        handle: Any = library
        if lib.backend == "cffi":
            handle = lib.ffi.cast("void *", library)
    else:
        handle = lib.handle_of(library)
    return lib.call("cudaload_symbol_provider", handle, symbol)
