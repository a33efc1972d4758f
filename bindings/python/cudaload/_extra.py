# SPDX-License-Identifier: MIT
"""The API beyond setup(): the GPU probe, the doctor, env_prepend(),
inspect() and isolation (isolated_import(), isolated_open(),
symbol_provider()), with their records.

Split from _api so that the first cudaload.setup() of a process, which
imports _api, does not also read and run this code (module code costs in
proportion to its size: unmarshalling and executing it). ``import cudaload``
imports it on first use of one of its names. It imports _api; _api never
imports it: the records Context.probe() and Context.doctor() make are in
_results, below both (tests/check_architecture.py fails on an import
circle among the package's modules).
"""

import _thread
import os
import sys

from . import _constants as C
from ._api import (Context, _load_default, _need, _path_arg, _path_list, _raise, _spec_list,
                   _text_arg)
from ._record import _Record
from ._results import Device, DoctorReport, FixStep, Probe, Problem, Stage
from ._text import _shown

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


# --------------------------------------------------------------------------
# Probe, doctor, environment, inspect
# --------------------------------------------------------------------------

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
