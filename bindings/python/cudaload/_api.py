# SPDX-License-Identifier: MIT
"""The Python API over the C API: setup(), preload(), scan(), Context and
the Report they return. The rest (probe, doctor, env_prepend, inspect,
isolation) is in _extra.

Everything here goes through one backend object (ctypes or CFFI) that exposes
``call(name, *args)`` and a few out-parameter helpers; see _library.py.

Import time matters: ``import cudaload`` runs before ``import torch``, in
every process, and imports this module on first use of one of its names
(normally cudaload.setup()), so its cost is part of every setup(). It
imports only what the interpreter has loaded at start-up anyway (os, sys,
``_thread``) and the package's _constants, _library, _record (the records'
base) and _text (text for people, escaped by the library); _results (the
probe's and the doctor's records) when Context.probe() or doctor() runs. typing,
dataclasses, json, ctypes (for the CFFI backend), threading, contextlib and
``__future__`` are not imported, nor _errors (thirteen exception classes)
until an exception is raised. Annotations naming typing types are strings,
and typing is imported for type checkers only. ``bench/python-bench`` and
``bench/compare`` measure it.
"""

import _thread
import os
import sys

from . import _constants as C
from ._library import load_default as _load_default
from ._library import need as _need
from ._library import open_library, set_default
from ._record import _Record
from ._text import _shown

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only, never at run time
    from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

    from ._results import DoctorReport, Probe

    PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
    Specs = Union[str, Iterable[str], None]

# The rest of the public API (probe, doctor, inspect, isolation, ...) is in
# _extra.
__all__ = [
    "Context", "Report", "Root", "Library", "PlanEntry", "Conflict",
    "setup", "scan", "preload", "default_site_packages", "use_backend", "backend",
    "library_path", "library_version",
]

# --------------------------------------------------------------------------
# The loaded library (opened by ``import cudaload``; _library keeps it)
# --------------------------------------------------------------------------


def use_backend(name: str, path: "Optional[PathLike]" = None) -> str:
    """Switch the default backend (``name``: the str "ctypes" or "cffi"),
    optionally opening libcudaload from ``path`` (str, bytes or
    os.PathLike; a bare file name is searched for by the OS loader).
    Returns the path of the library now in use. Raises ImportError (listing
    where it looked) when it cannot be opened, TypeError/ValueError for
    arguments of the wrong type or value."""
    _text_arg(name, "name")
    file_path = None
    if path is not None:
        file_path = _path_arg(path, "path")
        if not file_path:  # open_library() would search instead
            raise _invalid("use_backend: path: the path is empty")
    library = open_library(name, file_path)
    set_default(library)
    return library.path


def backend() -> str:
    """The name of the backend in use: "ctypes" or "cffi"."""
    return _load_default().backend


def library_path() -> str:
    """The libcudaload file (or loader name) in use."""
    return _load_default().path


def library_version() -> str:
    """``cudaload_version_string()`` of the library in use ("0.2.0")."""
    return _load_default().call("cudaload_version_string")


def _answer_first(function: str, status_text: str, error: "Optional[str]") -> str:
    """An exception's text, the answer first (issue 46): where the C error
    says "nothing was loaded: ..." and then the cause with its fix
    ("cublas=99: no usable cublas library; fix: ..."), the cause leads and
    the rest follows; otherwise the status, then the error. The error
    itself (``detail``) is the C library's, unchanged."""
    lines = (error or "").split("\n")
    if len(lines) > 1 and lines[0].startswith("nothing was loaded") and lines[1] and \
            not lines[1].startswith(" "):
        return "%s: %s\n%s" % (function, lines[1], "\n".join([lines[0]] + lines[2:]))
    message = "%s: %s" % (function, status_text)
    if error:
        message += ("\n" if "\n" in error else ": ") + error
    return message


def _raise(lib: "Any", status: int, function: str, what: str = "",
           report: "Any" = None) -> None:
    """Raise the Error subclass for ``status`` with the last-error text
    (_errors.raise_last(), imported only when it raises)."""
    from ._errors import raise_last
    raise_last(lib, status, function, what, report)


# --------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------
# Every public entry point checks the types and values of what it hands to
# the C library here, naming the argument ("roots[1]: embedded NUL
# character"). Without it: ctypes and CFFI cut a C string at its first NUL
# ("cudnn=9\0,cublas=99" became cudnn=9, "/usr/local/cuda\0/evil" was
# accepted), bytes were iterated as integers, and a str where a list was
# meant was read character by character.


def _invalid(message: str) -> "Exception":
    """InvalidArgumentError (a ValueError and a cudaload.Error) for an
    argument value the C library cannot be given."""
    from ._errors import InvalidArgumentError
    status_text = _load_default().call("cudaload_strerror", C.CUDALOAD_E_INVALID_ARGUMENT) or ""
    return InvalidArgumentError(message, status=C.CUDALOAD_E_INVALID_ARGUMENT,
                                status_text=status_text, detail=message)


def _text_arg(value: "Any", what: str) -> str:
    """A str argument the C library takes as a C string (a spec, a symbol,
    an origin): TypeError for any other type (bytes too: these are text,
    not file names), InvalidArgumentError for a NUL character."""
    if not isinstance(value, str):
        raise TypeError("%s: expected a str, got %s" % (what, type(value).__name__))
    if "\0" in value:
        raise _invalid("%s: embedded NUL character in %r" % (what, value))
    return value


def _error_text_arg(value: "Any") -> bytes:
    """An error text as the C library reads it: bytes as they are (a log's,
    in its encoding), a str as UTF-8 (surrogates from os.fsdecode() back to
    their bytes). TypeError for anything else."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    raise TypeError("error: expected a str or bytes, got %s" % type(value).__name__)


def _path_arg(value: "Any", what: str) -> str:
    """A path argument as a str: str, bytes or os.PathLike (of str or
    bytes). bytes are decoded with os.fsdecode(), which the backends undo
    with os.fsencode(), so a name that is not UTF-8 reaches the C library
    as its own bytes. TypeError for any other type, InvalidArgumentError
    for a NUL character. Not made absolute (_absolute_path() does that)."""
    try:
        path = os.fspath(value)
    except TypeError:
        raise TypeError("%s: expected a str, bytes or os.PathLike path, got %s"
                        % (what, type(value).__name__)) from None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if "\0" in path:
        raise _invalid("%s: embedded NUL character in %r" % (what, path))
    return path


def _path_list(values: "Any", what: str) -> "List[str]":
    """A list-of-paths argument (roots, site_packages): an iterable of
    what _path_arg() takes. A single path (str, bytes or os.PathLike) is a
    TypeError rather than one root: a str is itself an iterable (of
    characters), and "/opt/a:/opt/b" could as well be meant as a search
    path; ``roots=["/usr/local/cuda"]`` says which."""
    if isinstance(values, (str, bytes)) or hasattr(type(values), "__fspath__"):
        raise TypeError("%s: expected a list of paths, got a single %s (write %s=[%r])"
                        % (what, type(values).__name__, what, values))
    try:
        items = iter(values)
    except TypeError:
        raise TypeError("%s: expected an iterable of str, bytes or os.PathLike paths, got %s"
                        % (what, type(values).__name__)) from None
    return [_path_arg(item, "%s[%d]" % (what, i)) for i, item in enumerate(items)]


def _program_arg(program: "Any") -> str:
    """for_=: a module or distribution name (a str without a path
    separator that names no file here), else a path made absolute."""
    if isinstance(program, str) and "/" not in program and os.sep not in program \
            and not os.path.isfile(program):
        if "\0" in program:
            raise _invalid("for_: embedded NUL character in %r" % (program,))
        if not program:
            raise _invalid("for_: an empty program name")
        return program
    return _absolute_path(program, "for_")


def _spec_list(require: "Any", what: str = "require") -> "List[str]":
    """Requirements as a list of str: None (none), one str ("cudnn=8", or
    several joined with commas: "cudnn=8,cublas=12"), or an iterable of
    str. Specs are text: bytes are a TypeError (iterating them gives
    integers), as is any item that is not a str (None, bytes);
    InvalidArgumentError for a NUL character."""
    if require is None:
        return []
    if isinstance(require, str):
        return [_text_arg(require, what)]
    if isinstance(require, (bytes, bytearray, memoryview)):
        raise TypeError("%s: expected a str or an iterable of str, got %s"
                        % (what, type(require).__name__))
    try:
        items = iter(require)
    except TypeError:
        raise TypeError("%s: expected a str or an iterable of str, got %s"
                        % (what, type(require).__name__)) from None
    return [_text_arg(item, "%s[%d]" % (what, i)) for i, item in enumerate(items)]


def _absolute_path(path: "PathLike", what: str = "path") -> str:
    """A path as a person gives it (str, bytes or os.PathLike: see
    _path_arg(), which names ``what`` in its errors), as the C library
    takes it: an absolute one as given, a relative one joined to the
    current folder (os.path.abspath: "." and ".." resolved lexically,
    symbolic links left to the library), as the cudaload tool does. The C
    library refuses relative paths, so that what it finds does not depend on
    the current folder when it looks; resolving once, when the path is
    given, keeps that and lets people type relative paths. "" stays ""."""
    value = _path_arg(path, what)
    if not value:
        return value
    # Windows: a path pasted with its quotes (Explorer's "Copy as path")
    # keeps them, and no Windows name holds a '"': one surrounding pair is
    # taken off, not joined to the current folder.
    if os.name == "nt" and len(value) > 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    # Windows: "\x" and "C:x" are relative to a drive's current folder
    # (os.path.isabs() calls the first absolute before Python 3.13).
    if os.path.isabs(value) and (os.name != "nt" or os.path.splitdrive(value)[0]):
        return value
    return os.path.abspath(value)


def _absolute(lib: "Any", path: "PathLike", what: str, function: str) -> str:
    """_absolute_path(), with InvalidArgumentError naming ``what`` for an
    empty path (which names no file: more likely an unset variable)."""
    value = _absolute_path(path, what)
    if not value:
        from ._errors import InvalidArgumentError
        status_text = lib.call("cudaload_strerror", C.CUDALOAD_E_INVALID_ARGUMENT) or ""
        raise InvalidArgumentError("%s: %s: the path is empty" % (function, what),
                                   status=C.CUDALOAD_E_INVALID_ARGUMENT,
                                   status_text=status_text, detail="%s: the path is empty" % what,
                                   function=function)
    return value


# --------------------------------------------------------------------------
# Report objects (their base, _Record, is _record's; text for people, _shown(),
# is _text's: the library escapes it)
# --------------------------------------------------------------------------


class Root(_Record):
    """A folder the scan searched: its path, where it came from (the C
    library's cudaload_root_origin(): "explicit", "interpreter" for the
    site folders a Context passes, "VIRTUAL_ENV", "CUDNN_PATH",
    "CUDA_PATH", "toolkit", "ld.so.cache", ...; or the label given to
    Context.add_root()), whether it was read ("ok", "not found", "not a
    folder", ...), and its precedence tier (cudaload_root_tier():
    "explicit", "environment", "variable", "toolkit" or "system"; "" from a
    libcudaload without tiers). An earlier tier wins over a newer version in
    a later one (docs/scan-contract.md, "Precedence"). ``tier`` is last so
    that positional construction of the four older fields still works."""

    __slots__ = ("path", "origin", "status", "status_code", "tier")

    def __init__(self, path: str, origin: str, status: str, status_code: int,
                 tier: str = "") -> None:
        self.path = path
        self.origin = origin
        self.status = status
        self.status_code = status_code
        self.tier = tier


class Library(_Record):
    """A library file the scan found, with its version and where the
    version came from ("dist-info", "file-name", "header", "versioninfo",
    "none"). ``root`` indexes Report.roots. ``include_dir``: its family's
    header folder beside it (None when none); ``machine``: what it was built
    for ("x86_64", "aarch64", ...; None when unreadable)."""

    __slots__ = ("name", "family", "major", "cuda_major", "version", "version_source",
                 "version_file", "path", "root", "include_dir", "machine")

    def __init__(self, name: str, family: str, major: int, cuda_major: "Optional[int]",
                 version: "Optional[str]", version_source: str, version_file: "Optional[str]",
                 path: str, root: int, include_dir: "Optional[str]" = None,
                 machine: "Optional[str]" = None) -> None:
        self.name = name
        self.family = family
        self.major = major
        self.cuda_major = cuda_major
        self.version = version
        self.version_source = version_source
        self.version_file = version_file
        self.path = path
        self.root = root
        self.include_dir = include_dir
        self.machine = machine


class PlanEntry(_Record):
    """One file of the plan: why it is there (``reason``), what happened to
    it (``state``: "planned", "loaded", "already-loaded", "loaded-elsewhere",
    "failed", "not-needed") and the file the process actually uses."""

    __slots__ = ("name", "major", "path", "reason", "state", "state_code", "loaded_path")

    def __init__(self, name: str, major: int, path: str, reason: str, state: str,
                 state_code: int, loaded_path: "Optional[str]") -> None:
        self.name = name
        self.major = major
        self.path = path
        self.reason = reason
        self.state = state
        self.state_code = state_code
        self.loaded_path = loaded_path


class Conflict(_Record):
    """Another major of a required family in the global symbol scope: its
    file and one sentence with the fix."""

    __slots__ = ("path", "text")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text


# An ErrorMessage's own fields; then one attribute per fact a message states.
_MESSAGE_FIELDS = ("kind", "quote", "file", "needed_by", "requirement", "diagnosis",
                   "facts", "sources")
# The facts are the header's CUDALOAD_MESSAGE_FACT_* (pinned in _constants,
# which tests/python/test_header.py checks against include/cudaload.h), in
# their order, each an attribute named as its constant in lower case
# ("cuda_major"); the library names it in its reports with hyphens
# (cudaload_error_message_fact_name(): "cuda-major"), which
# tests/python/test_one_copy.py checks for every fact. A fact that is an
# ErrorMessage field already (needed_by) is that field.
_MESSAGE_FACT_PREFIX = "CUDALOAD_MESSAGE_FACT_"
_MESSAGE_FACTS = tuple(attr for _, attr in sorted(
    (getattr(C, name), name[len(_MESSAGE_FACT_PREFIX):].lower())
    for name in dir(C) if name.startswith(_MESSAGE_FACT_PREFIX))
    if attr not in _MESSAGE_FIELDS)


class ErrorMessage(_Record):
    """One message Context.read_error_message() recognised in a pasted
    text: ``kind`` ("library-missing", "library-or-dependency",
    "cublas-not-initialized", "driver-too-old", "no-kernel-image",
    "symbol-missing", "version-mismatch", "driver-missing",
    "cuda-unavailable", "package-conflict"), the ``quote`` (the line it was
    read from), the ``file`` it is about (as written: a path too) and the
    library that ``needed_by`` it (None when not said), the ``requirement``
    it implies ("cudnn=8"; None for none) and its ``diagnosis``.

    The facts the message states, each a str or None where it does not tell
    (docs/error-messages.md, "Facts"): ``cause`` ("not-found",
    "path-not-found", "older-library", ...), ``file_form`` ("name",
    "absolute-path", "relative-path"), ``file_name``, ``folder``,
    ``library``, ``family``, ``major``, ``cuda_major``, ``cuda_version``,
    ``required_version``, ``found_version``, ``driver_cuda_version``,
    ``symbol``, ``symbol_version``, ``windows_error`` ("126", "127"),
    ``candidates`` (a list of str, or None), ``consumer_module``,
    ``consumer_version``, ``environment``, ``distribution``. ``facts``
    holds every fact by its C name ("cuda-major", and any a newer
    libcudaload adds) and ``sources`` the piece of the text each was read
    from."""

    __slots__ = _MESSAGE_FIELDS + _MESSAGE_FACTS

    def __init__(self, kind: str, quote: str, file: "Optional[str]" = None,
                 needed_by: "Optional[str]" = None, requirement: "Optional[str]" = None,
                 diagnosis: str = "", facts: "Optional[Dict[str, str]]" = None,
                 sources: "Optional[Dict[str, str]]" = None) -> None:
        self.kind = kind
        self.quote = quote
        self.file = file
        self.needed_by = needed_by
        self.requirement = requirement
        self.diagnosis = diagnosis
        self.facts = dict(facts or {})
        self.sources = dict(sources or {})
        for attr in _MESSAGE_FACTS:
            value = self.facts.get(attr.replace("_", "-"))
            if attr == "candidates" and value is not None:
                value = value.split(",")
            setattr(self, attr, value)


# The fields of a Report that setup(), preload() and scan() read on first
# use (see _ContextReader): the lists, the scan's table and the plan's text,
# from the C context, and two strings.
_CONTEXT_FIELDS = ("requirements", "roots", "libraries", "plan", "conflicts", "_table",
                   "_text")
_LAZY_FIELDS = _CONTEXT_FIELDS + ("status_text", "env_name")


class _ContextReports(_Record):
    """Base of Report: the slot of its _ContextReader (not a field)."""

    __slots__ = ("_reader",)


class Report(_ContextReports):
    """What a scan, plan or preload found and did.

    ``status`` is the C status of the last step (0 when everything worked),
    ``error`` its last-error text (what is missing, where it looked, what it
    rejected and why, the fix). ``plan`` lists every file with its reason and
    state; ``conflicts`` the other majors in the global scope; ``probe`` the
    GPU probe when one was run. ``warnings`` (a list of str): what the plan
    found missing that a chosen library will open by name later (cuDNN 8
    opens cuBLAS 12), each with the fix; setup() and preload() also emit
    them once as a CudaloadWarning.
    """

    __slots__ = ("requirements", "roots", "libraries", "plan", "conflicts", "status",
                 "status_text", "error", "env_name", "target", "probe", "backend",
                 "library_path", "warnings", "_table", "_text")

    def __init__(self, requirements: "Optional[List[str]]" = None,
                 roots: "Optional[List[Root]]" = None,
                 libraries: "Optional[List[Library]]" = None,
                 plan: "Optional[List[PlanEntry]]" = None,
                 conflicts: "Optional[List[Conflict]]" = None,
                 status: int = 0, status_text: str = "success", error: str = "",
                 env_name: str = "", target: str = "", probe: "Optional[Probe]" = None,
                 backend: str = "", library_path: str = "",
                 warnings: "Optional[List[str]]" = None) -> None:
        self._reader = None
        self._table = None  # table(): the C library's text (Optional[str])
        self._text = None  # str(): the C library's plan report (Optional[str])
        self.warnings = [] if warnings is None else warnings
        self.requirements = [] if requirements is None else requirements
        self.roots = [] if roots is None else roots
        self.libraries = [] if libraries is None else libraries
        self.plan = [] if plan is None else plan
        self.conflicts = [] if conflicts is None else conflicts
        self.status = status
        self.status_text = status_text
        self.error = error
        self.env_name = env_name
        self.target = target
        self.probe = probe
        self.backend = backend
        self.library_path = library_path

    def __getattr__(self, name: str) -> "Any":
        # Python calls this only when a name is not found: here, a field
        # whose slot is still empty because a _ContextReader reads it on
        # first use. The value is then kept in the slot.
        reader = None
        if name in _LAZY_FIELDS:
            try:
                reader = self._reader
            except AttributeError:  # made without __init__ (Report.__new__)
                pass
        if reader is None:
            raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))
        value = reader.read(name)
        setattr(self, name, value)
        return value

    def __getstate__(self) -> "Tuple[None, Dict[str, Any]]":
        """pickle and copy: every field, read; never the C context."""
        state = {name: getattr(self, name) for name in self.__slots__}
        state["_reader"] = None
        return None, state

    @property
    def ok(self) -> bool:
        """True when the last step returned CUDALOAD_OK."""
        return self.status == C.CUDALOAD_OK

    @property
    def loaded(self) -> "List[PlanEntry]":
        """The plan entries the process now uses (loaded by cudaload or
        already there)."""
        return [e for e in self.plan if e.state_code in (
            C.CUDALOAD_STATE_LOADED, C.CUDALOAD_STATE_ALREADY_LOADED,
            C.CUDALOAD_STATE_LOADED_ELSEWHERE)]

    def scan_dict(self) -> "Dict[str, Any]":
        """The scan part, in the schema of ``cudaload scan --format json``."""
        return {
            "schema_version": 1,
            "target": self.target,
            "roots": [{"path": r.path, "origin": r.origin, "tier": r.tier, "status": r.status}
                      for r in self.roots],
            "libraries": [{
                "name": lib.name, "family": lib.family, "major": lib.major,
                "cuda_major": lib.cuda_major, "version": lib.version,
                "version_source": lib.version_source, "version_file": lib.version_file,
                "path": lib.path, "include_dir": lib.include_dir, "machine": lib.machine,
                "root": lib.root,
            } for lib in self.libraries],
        }

    def table(self) -> str:
        """The scan part as ``cudaload scan`` prints it, written by the C
        library (cudaload_scan_report()): an aligned table, the summary
        line, the environments nearby that were not searched, and the
        explicit roots that could not be read. Versions and paths are shown
        as the tool shows them (control characters and bytes that are not
        UTF-8 escaped). A Report made by hand, not by the library, has no
        table: ValueError."""
        try:
            text = self._table
        except AttributeError:  # unpickled from a version without it
            text = None
        if text is None:
            raise ValueError("Report.table(): this Report was not made by a scan of the "
                             "C library (cudaload.scan(), Context.report()), which writes "
                             "the table")
        return text

    def __str__(self) -> str:
        """For people: the status, then the plan as the C library writes it
        (cudaload_plan_report(): the requirements, each file in load order
        with its state and why, the conflicts, what the scan found; the
        text ``cudaload env --dry-run`` prints), then the error, the probe
        and the backend. Values from outside are shown escaped, as the
        cudaload tool shows them. A Report made by hand, not by the
        library, has no plan text: its status, error and probe only."""
        lines = ["status: %s (%d)" % (self.status_text, self.status)]
        try:
            text = self._text
        except AttributeError:  # unpickled from a version without it
            text = None
        if text:
            lines.append(text.rstrip("\n"))
        if self.error:
            lines.append("error:\n" + "\n".join("  " + line for line in
                                                  _shown(self.error, True).splitlines()))
        if self.probe is not None:
            lines.append("probe:\n" + "\n".join("  " + line if line else line
                                                  for line in str(self.probe).splitlines()))
        lines.append("backend: %s (%s)" % (self.backend, self.library_path))
        return "\n".join(lines)


# --------------------------------------------------------------------------
# Context
# --------------------------------------------------------------------------

_TARGETS = {"host": C.CUDALOAD_TARGET_HOST, "linux": C.CUDALOAD_TARGET_LINUX,
            "windows": C.CUDALOAD_TARGET_WINDOWS}



def default_site_packages() -> "List[str]":
    """This interpreter's site folders: site.getsitepackages(), the user
    site, and the sys.path entries named site-packages or dist-packages
    (a venv's, or one added with site.addsitedir). Existing folders only,
    each once, in that order."""
    import site  # imported at start-up already, unless python -S
    found: List[str] = []
    try:
        found.extend(site.getsitepackages())
    except AttributeError:  # old virtualenv's site.py
        pass
    try:
        if site.ENABLE_USER_SITE:
            found.append(site.getusersitepackages())
    except AttributeError:
        pass
    for entry in sys.path:
        if entry and os.path.basename(os.path.normpath(entry)) in ("site-packages", "dist-packages"):
            found.append(entry)
    out: List[str] = []
    seen = set()
    for entry in found:
        if not entry or not os.path.isdir(entry):
            continue
        absolute = os.path.abspath(entry)
        key = os.path.normcase(os.path.realpath(absolute))
        if key not in seen:
            seen.add(key)
            out.append(absolute)
    return out


def _sys_path_installs() -> "List[str]":
    """The folders of sys.path that hold a *.dist-info folder and are not
    site folders default_site_packages() names: where pip install --target
    put distributions that this interpreter imports (PYTHONPATH, a .pth
    file, sys.path.insert). Absolute, existing, each once."""
    known = {os.path.normcase(os.path.realpath(p)) for p in default_site_packages()}
    out: List[str] = []
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        folder = os.path.abspath(entry)
        key = os.path.normcase(os.path.realpath(folder))
        if key in known:
            continue
        known.add(key)
        try:
            holds = any(name.endswith(".dist-info") for name in os.listdir(folder))
        except OSError:
            holds = False
        if holds:
            out.append(folder)
    return out


class Context:
    """A libcudaload context: roots, the scanned inventory, requirements and
    a plan. Not thread-safe (as the C context); use one per thread.

    Which roots each argument adds, in precedence order (an earlier tier
    wins even over a newer version in a later one; docs/scan-contract.md,
    "Precedence"):

    Args:
        roots: the "explicit" tier, searched first, in order: a list (any
            iterable) of str, bytes or os.PathLike paths; a relative path
            is resolved against the current folder now. One that does not
            exist makes scan() raise NotFoundError. A single path is a
            TypeError (write ``roots=[path]``).
        site_packages: the "environment" tier (origin "interpreter"),
            passed with cudaload_add_environment_root(): None (default) means
            this interpreter's site folders (default_site_packages()); an
            iterable, those folders instead; False, none. Searched whatever
            ``defaults`` says. When it adds folders they replace the C
            library's own guess of the environment (VIRTUAL_ENV,
            CONDA_PREFIX, the python3 on PATH); when it adds none (False,
            an empty list) and ``defaults`` is true, that guess is used.
        defaults: the C library's default roots, after those: its
            environment guess (above), the "variable" tier (CUDNN_PATH,
            CUDA_PATH, CUDA_PATH_V*, CUDA_HOME), the "toolkit" tier
            (/usr/local/cuda*, ...) and the "system" tier (ld.so.cache).
            False (CUDALOAD_NO_DEFAULT_ROOTS) leaves out only these: the
            site folders of ``site_packages`` are still searched.
        target: the str "host", "linux" or "windows": naming conventions.
        allow_writable_roots: accept folders and libraries other users can
            write to (CUDALOAD_ALLOW_WRITABLE_ROOTS). By default they are
            refused, since whoever can write there can run their own code
            in this process; the report names each and the command that
            makes it private.

    Arguments of the wrong type raise TypeError, values the C library
    cannot take (a NUL character in a path, an empty path) raise
    InvalidArgumentError (a ValueError), each naming the argument
    ("roots[1]: embedded NUL character"), before the C context is made.
    """

    def __init__(self, roots: "Optional[Iterable[PathLike]]" = None,
                 site_packages: "Union[Iterable[PathLike], None, bool]" = None,
                 defaults: bool = True, target: str = "host", *,
                 allow_writable_roots: bool = False) -> None:
        self._lib = _load_default()
        self._ctx: Any = None
        self._origins: Dict[str, str] = {}
        self._target = target
        self._scanned = False
        # Every argument is checked (and every path made absolute) before
        # the C context exists, so a bad one leaves nothing half-made.
        folders = [_absolute(self._lib, path, "roots[%d]" % i, "cudaload_add_root")
                   for i, path in enumerate(_path_list(roots, "roots") if roots is not None else ())]
        # defaults=False used to drop the site folders too, and a setup()
        # that then found nothing told the user to install the very wheel
        # this interpreter has: only False leaves them out now.
        # The default is this interpreter, whose sys.path require_for()
        # reads too.
        self._this_interpreter = site_packages is None
        if site_packages is None:
            site_packages = default_site_packages()
        elif site_packages is False:
            site_packages = []
        environment = [_absolute(self._lib, path, "site_packages[%d]" % i,
                                 "cudaload_add_environment_root")
                       for i, path in enumerate(_path_list(site_packages, "site_packages"))]
        if not isinstance(target, str):
            raise TypeError("target: expected a str, got %s" % type(target).__name__)
        if target not in _TARGETS:
            raise ValueError("target %r: expected host, linux or windows" % (target,))
        flags = 0 if defaults else C.CUDALOAD_NO_DEFAULT_ROOTS
        if allow_writable_roots:
            flags |= C.CUDALOAD_ALLOW_WRITABLE_ROOTS
        ctx = self._lib.call("cudaload_create", flags)
        if ctx is None:
            _raise(self._lib, C.CUDALOAD_E_NO_MEMORY, "cudaload_create")
        self._ctx = ctx
        seen: "set" = set()
        for path in folders:
            self._add_root(path, "explicit", seen)
        for path in environment:
            self._add_environment_root(path, seen)
        status = self._lib.call("cudaload_set_target", self._ctx, _TARGETS[target])
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_set_target", target)

    # -- lifetime ---------------------------------------------------------
    def close(self) -> None:
        """Destroy the C context (loaded libraries stay loaded)."""
        if self._ctx is not None:
            self._lib.call("cudaload_destroy", self._ctx)
            self._ctx = None

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: "Any") -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    @property
    def handle(self) -> "Any":
        """The ``cudaload_ctx *`` of the backend in use."""
        if self._ctx is None:
            raise ValueError("this cudaload Context is closed")
        return self._ctx

    # -- roots and scan ---------------------------------------------------
    def add_root(self, folder: "PathLike", origin: str = "explicit") -> None:
        """Search ``folder`` (str, bytes or os.PathLike) before the default
        roots. A relative path is resolved against the current folder now
        (os.path.abspath), and the reports show it absolute. It need not
        exist yet; if it still does not at scan(), that raises
        NotFoundError. ``origin`` (a str) is what reports show as its
        origin. TypeError/InvalidArgumentError as for Context()."""
        self._add_root(_absolute(self._lib, folder, "folder", "cudaload_add_root"),
                       _text_arg(origin, "origin"), None)

    def _add_root(self, path: str, origin: str, _seen: "Optional[set]") -> None:
        """add_root() of a path already checked and made absolute; skipped
        when its key is in ``_seen`` (the roots of Context())."""
        if _seen is not None:
            key = os.path.normcase(os.path.abspath(path))
            if key in _seen:
                return
            _seen.add(key)
        status = self._lib.call("cudaload_add_root", self.handle, path)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_add_root", path)
        self._origins.setdefault(path, origin)

    def add_environment_root(self, folder: "PathLike") -> None:
        """Search ``folder`` (str, bytes or os.PathLike; a relative path is
        resolved against the current folder now) in the "environment"
        tier (cudaload_add_environment_root()): after the explicit roots,
        before CUDNN_PATH/CUDA_PATH, the toolkits and the system, even with
        ``defaults=False``; its origin is "interpreter". What the
        ``site_packages`` argument of Context() does with each folder.
        TypeError/InvalidArgumentError as for Context()."""
        self._add_environment_root(
            _absolute(self._lib, folder, "folder", "cudaload_add_environment_root"), None)

    def _add_environment_root(self, path: str, _seen: "Optional[set]") -> None:
        """add_environment_root() of a path already checked and made
        absolute; skipped when its key is in ``_seen`` (a folder given as
        an explicit root stays explicit, the stronger tier)."""
        if _seen is not None:
            key = os.path.normcase(os.path.abspath(path))
            if key in _seen:
                return
            _seen.add(key)
        if not self._lib.has("cudaload_add_environment_root"):
            # A libcudaload from before the tiers: an explicit root, as
            # the site folders were then (searched before the defaults).
            status = self._lib.call("cudaload_add_root", self.handle, path)
            function = "cudaload_add_root"
        else:
            status = self._lib.call("cudaload_add_environment_root", self.handle, path)
            function = "cudaload_add_environment_root"
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, function, path)

    def scan(self) -> "Context":
        """Scan the roots (never loads anything). Returns self. Raises
        NotFoundError, naming it, when a root given as ``roots`` or with
        add_root() does not exist (as ``cudaload scan`` exits 3); the
        scan's Report is the exception's ``report``."""
        missing = self._scan()
        if missing:
            from ._errors import NotFoundError
            status = C.CUDALOAD_E_NOT_FOUND
            status_text = self._lib.call("cudaload_strerror", status) or ""
            raise NotFoundError("cudaload_scan: %s%s%s" % (
                                    status_text, "\n" if "\n" in missing else ": ", missing),
                                status=status, status_text=status_text, detail=missing,
                                function="cudaload_scan",
                                report=self.report(status, missing))
        return self

    def _scan(self) -> str:
        """cudaload_scan(); then "" or the lines that name the roots given
        by the caller (origin "explicit": not the site folders, not a
        manifest's roots, which the doctor reports) that do not exist.
        The C library reports them as roots with status "not found" and
        goes on: a default root may well be absent, but a folder someone
        named and that is not there is a mistake to stop at, before
        anything is loaded."""
        status = self._lib.call("cudaload_scan", self.handle)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_scan")
        self._scanned = True
        # A file given as a root would be searched as an empty folder: 0
        # libraries and no word. It is refused like a folder that is not
        # there, naming the folder that holds it.
        return "\n".join(
            ("root '%s' does not exist" % root.path
             if root.status_code == C.CUDALOAD_E_NOT_FOUND else
             "root '%s' is a file, not a folder: a root is the folder that holds the "
             "libraries (that file's is '%s')" % (root.path, os.path.dirname(root.path)))
            for root in self.roots()
            if root.status_code in (C.CUDALOAD_E_NOT_FOUND, C.CUDALOAD_E_NOT_A_FILE)
            and self._origins.get(root.path) == "explicit")

    def roots(self) -> "List[Root]":
        """Every root the last scan searched."""
        return _read_roots(self._lib, self.handle, self._origins)

    def libraries(self) -> "List[Library]":
        """Every library the last scan found, in report order."""
        return _read_libraries(self._lib, self.handle, self._origins)

    # -- requirements, plan, preload -----------------------------------
    def require(self, specs: "Specs") -> "Context":
        """Add requirements: one str ("cudnn=8", "cublas>=12.4",
        "cudnn=8,cudnn=9"), an iterable of str, or None (none). Raises
        BadSpecError naming what could not be read, TypeError for anything
        but str (bytes and None items too) and InvalidArgumentError for a
        NUL character, naming the argument as ``require``/``require[i]``,
        before any is added."""
        for spec in _spec_list(specs):
            status = self._lib.call("cudaload_require", self.handle, spec)
            if status != C.CUDALOAD_OK:
                _raise(self._lib, status, "cudaload_require", repr(spec))
        return self

    def require_for(self, program: "Any") -> "Context":
        """Require what a program needs, read from the program itself
        (cudaload_require_for): an installed module or distribution of this
        environment ("torch", "onnxruntime"), found as the interpreter
        imports it (with the default site_packages, this interpreter's
        sys.path: PYTHONPATH, the user site, .pth folders, folders pip
        installed into with --target), or the path (str, bytes or
        os.PathLike; relative to the current folder) of a binary, an
        interpreter or a venv. Each requirement it adds says where it came
        from (requirement_origins()). What the program needs only for a
        feature (CuPy's cuTENSOR) is no requirement: the plan's warnings
        say it, with its fix. NotFoundError names where it looked when the
        program is none of these; None adds nothing."""
        if program is None:
            return self
        _need(self._lib, "cudaload_require_for")
        target = _program_arg(program)
        if self._this_interpreter and not os.path.isabs(target):
            # A module of this interpreter is found as it imports it: the
            # folders of sys.path that distributions were installed into
            # beside the site folders (pip install --target, PYTHONPATH,
            # sys.path.insert) are its environment too.
            for folder in _sys_path_installs():
                self._add_environment_root(folder, None)
        status = self._lib.call("cudaload_require_for", self.handle, target)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_require_for", repr(target))
        self._scanned = False  # a new environment root means a new scan
        return self

    def requirement_origins(self) -> "Dict[str, str]":
        """Where each requirement require_for() derived came from, by its
        text: {"cudnn=9": "needed by .../libtorch_cuda.so (ELF NEEDED); ..."}.
        Requirements given as specs are not in it."""
        lib = self._lib
        if not lib.has("cudaload_requirement_origin"):
            return {}
        out = {}
        for i in range(lib.call("cudaload_requirement_count", self.handle)):
            origin = lib.call("cudaload_requirement_origin", self.handle, i)
            if origin:
                out[lib.call("cudaload_requirement_text", self.handle, i)] = origin
        return out

    def read_error_message(self, text: "Union[str, bytes]") -> "List[ErrorMessage]":
        """Start from the error a program printed: read ``text`` (a str, or
        bytes as a log file holds them: UTF-8, or UTF-16 with its BOM as
        PowerShell's ``>`` writes; NUL bytes separate lines) and add the
        requirements it implies, as require() would ("Could not load library
        libcudnn_ops_infer.so.8" is cudnn=8; a CUDA major the text states
        pins the plan's). doctor() then reports each message with what it
        means here and its fix. Returns the messages recognised.

        Any size is read in time linear in it; a text longer than
        CUDALOAD_ERROR_TEXT_HEAD + CUDALOAD_ERROR_TEXT_TAIL bytes is read as
        its first and last bytes of those sizes (start-up messages and the
        traceback), with a CudaloadWarning saying so. Raises
        UnreadableMessageError (a BadSpecError) listing the forms understood
        when the text holds none (nothing is added), TypeError for anything
        but str or bytes, MissingFunctionError with a libcudaload older
        than CUDALOAD_1.2."""
        data = _error_text_arg(text)
        _need(self._lib, "cudaload_read_error_message")
        limit = C.CUDALOAD_ERROR_TEXT_HEAD + C.CUDALOAD_ERROR_TEXT_TAIL
        if len(data) > limit:
            import warnings
            from ._errors import CudaloadWarning
            warnings.warn("error text of %d bytes: read are its first %d and its last %d"
                          % (len(data), C.CUDALOAD_ERROR_TEXT_HEAD,
                             C.CUDALOAD_ERROR_TEXT_TAIL), CudaloadWarning, stacklevel=2)
        if self._lib.has("cudaload_read_error_text"):
            status = self._lib.call("cudaload_read_error_text", self.handle, data, len(data))
        else:  # a libcudaload of CUDALOAD_1.2: text without NUL, UTF-8
            if b"\0" in data:
                raise _invalid("error: embedded NUL character (this libcudaload "
                               "reads no NUL; CUDALOAD_1.3 does)")
            status = self._lib.call("cudaload_read_error_message", self.handle,
                                    data.decode("utf-8", "surrogateescape"))
        if status == C.CUDALOAD_E_BAD_SPEC:
            from ._errors import UnreadableMessageError
            detail = self._lib.call("cudaload_last_error") or ""
            raise UnreadableMessageError(
                "cudaload_read_error_message: %s" % detail, status=status,
                status_text=self._lib.call("cudaload_strerror", status) or "",
                detail=detail, function="cudaload_read_error_message")
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_read_error_message")
        return self.error_messages()

    def error_messages(self) -> "List[ErrorMessage]":
        """The messages the last read_error_message() recognised."""
        lib = self._lib
        if not lib.has("cudaload_error_message_count"):
            return []
        count = lib.call("cudaload_error_message_count", self.handle)
        kind = lambda i: lib.call("cudaload_error_message_kind_name",  # noqa: E731
                                  lib.call("cudaload_error_message_kind", self.handle, i))
        field = lambda name, i: lib.call("cudaload_error_message_" + name, self.handle, i)  # noqa: E731
        names = []
        if lib.has("cudaload_error_message_fact_name"):
            number = 1
            while True:
                name = lib.call("cudaload_error_message_fact_name", number)
                if name is None:
                    break
                names.append((number, name))
                number += 1
        messages = []
        for i in range(count):
            facts, sources = {}, {}
            for number, name in names:
                value = lib.call("cudaload_error_message_fact", self.handle, i, number)
                if value is not None:
                    facts[name] = value
                    source = lib.call("cudaload_error_message_fact_source", self.handle, i,
                                      number)
                    if source is not None:
                        sources[name] = source
            messages.append(ErrorMessage(kind(i) or "", field("quote", i) or "",
                                         field("file", i), field("needed_by", i),
                                         field("requirement", i),
                                         field("diagnosis", i) or "", facts, sources))
        return messages

    def requirements(self) -> "List[str]":
        """The requirements added, normalised ("cudnn=8")."""
        return _read_requirements(self._lib, self.handle, self._origins)

    def plan(self, rtld_global: bool = False, all_sublibs: bool = False,
             check: bool = True) -> "Report":
        """Resolve the requirements into a plan (loads nothing); scans
        first if scan() was not called (a missing root: NotFoundError)."""
        if not self._scanned:
            missing = self._scan()
            if missing:
                return self._finish(C.CUDALOAD_E_NOT_FOUND, "cudaload_scan", check, error=missing)
        status = self._lib.call("cudaload_plan", self.handle, _preload_flags(rtld_global, all_sublibs))
        return self._finish(status, "cudaload_plan", check)

    def preload(self, rtld_global: bool = False, all_sublibs: bool = False,
                check: bool = True, partial: bool = False) -> "Report":
        """Plan and load the plan by absolute path (RTLD_LOCAL unless
        ``rtld_global``). All or nothing: when a requirement is
        unsatisfied, or another major is known to be in the global scope,
        nothing is loaded and the error says so ("nothing was loaded");
        ``partial`` loads what can be anyway (CUDALOAD_PRELOAD_PARTIAL).
        With ``check`` a failure raises the Error subclass of its status
        (UnsatisfiedError, LoadFailedError, ConflictError; NotFoundError
        for a root that does not exist, before anything is loaded) with the
        report attached as ``.report``; without, the report says it. Scans
        first if scan() was not called."""
        return self._preload(rtld_global, all_sublibs, check, False, partial)

    def open_isolated(self, path: "PathLike", all_sublibs: bool = False) -> "Any":
        """The fix a conflict names, in one call (cudaload_open_isolated()):
        load this context's plan RTLD_LOCAL, also with another major in the
        global scope, then open ``path`` (a str, bytes or os.PathLike) with
        RTLD_DEEPBIND (Linux), so it binds the plan's files; returns it as a
        ctypes.CDLL. Scans first if scan() was not called. Raises the Error
        of the failure (UnsatisfiedError: nothing was loaded;
        LoadFailedError) with the C library's message."""
        import ctypes
        if not self._scanned:
            missing = self._scan()
            if missing:
                _raise(self._lib, C.CUDALOAD_E_NOT_FOUND, "cudaload_scan", missing)
        file_path = _absolute_path(path, "path")
        flags = C.CUDALOAD_PRELOAD_ALL_SUBLIBS if all_sublibs else 0
        _need(self._lib, "cudaload_open_isolated")
        status, handle = self._lib.open_isolated(self.handle, file_path, flags)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_open_isolated", file_path)
        return ctypes.CDLL(file_path, handle=self._lib.pointer_value(handle))

    def _preload(self, rtld_global: bool, all_sublibs: bool, check: bool,
                 hand_over: bool, partial: bool = False,
                 isolate: bool = False) -> "Report":
        if not self._scanned:
            missing = self._scan()
            if missing:
                return self._finish(C.CUDALOAD_E_NOT_FOUND, "cudaload_scan", check, hand_over,
                                    error=missing)
        flags = _preload_flags(rtld_global, all_sublibs, partial)
        status = self._lib.call("cudaload_preload", self.handle, flags)
        if status == C.CUDALOAD_E_CONFLICT and isolate and not partial:
            # The caller opens the consumers isolated, so the conflict is
            # no reason to load nothing: every requirement is satisfied
            # (else the status would be UNSATISFIED), load them. After a
            # conflict found only by loading, this loads nothing more.
            status = self._lib.call("cudaload_preload", self.handle,
                                    flags | C.CUDALOAD_PRELOAD_PARTIAL)
        return self._finish(status, "cudaload_preload", check, hand_over)

    def plan_entries(self) -> "List[PlanEntry]":
        """The plan, in load order."""
        return _read_plan(self._lib, self.handle, self._origins)

    def conflicts(self) -> "List[Conflict]":
        """Other majors of required families in the global symbol scope."""
        return _read_conflicts(self._lib, self.handle, self._origins)

    def report(self, status: int = C.CUDALOAD_OK, error: str = "") -> "Report":
        """A Report of the context as it stands."""
        lib = self._lib
        report = Report(requirements=self.requirements(), roots=self.roots(),
                        libraries=self.libraries(), plan=self.plan_entries(),
                        conflicts=self.conflicts(), status=status,
                        status_text=lib.call("cudaload_strerror", status) or "", error=error,
                        env_name=lib.call("cudaload_env_name") or "",
                        target=self._target_name(), backend=lib.backend,
                        library_path=lib.path, warnings=self.plan_warnings())
        if lib.has("cudaload_scan_report"):
            report._table = _scan_report(lib, self.handle, C.CUDALOAD_FORMAT_TEXT)
        report._text = _read_text(lib, self.handle, self._origins)
        return report

    def _scan_report(self, format: str) -> str:
        """cudaload_scan_report(): the scan as ``cudaload scan --format``
        prints it; ``format`` is the str "text", "json" or "yaml"."""
        from ._results import _FORMATS
        return _scan_report(self._lib, self.handle, _FORMATS[format])

    def _hand_over_report(self, status: int = C.CUDALOAD_OK, error: str = "") -> "Report":
        """report() for the one-call functions, which are done with this
        Context: the Report takes the C context over and reads the fields
        of _LAZY_FIELDS on first use (_ContextReader), and this Context is
        closed. Most callers of setup() look at the plan at most; reading
        back every library of the inventory is hundreds of calls, right
        after the preload, when they are slowest (see the readers below)."""
        warnings = self.plan_warnings()  # a few strings: read before the hand-over
        report = Report.__new__(Report)
        report._reader = _ContextReader(self._lib, self.handle, self._origins, status)
        self._ctx = None
        report.status = status
        report.error = error
        report.target = self._target_name()
        report.probe = None
        report.backend = self._lib.backend
        report.library_path = self._lib.path
        report.warnings = warnings
        return report

    def plan_warnings(self) -> "List[str]":
        """The last plan's warnings (cudaload_plan_warning): a library a
        chosen one opens by name later that no root holds, with the fix.
        Empty before a plan, or with a libcudaload older than 1.1."""
        lib = self._lib
        if self._ctx is None or not lib.has("cudaload_plan_warning_count"):
            return []
        count = lib.call("cudaload_plan_warning_count", self._ctx)
        return [lib.call("cudaload_plan_warning", self._ctx, i) or "" for i in range(count)]

    def _target_name(self) -> str:
        """The target's name, "host" resolved ("linux" or "windows")."""
        if self._target == "host":
            return "windows" if sys.platform == "win32" else "linux"
        return self._target

    def _finish(self, status: int, function: str, check: bool,
                hand_over: bool = False, error: "Optional[str]" = None) -> "Report":
        """The Report of the step that returned ``status``; with ``check``,
        raise the Error of a failure. ``hand_over``: _hand_over_report().
        ``error``: the reason, when it is not the C last error."""
        if error is None:
            error = (self._lib.call("cudaload_last_error") or "") if status != C.CUDALOAD_OK else ""
        report = self._hand_over_report(status, error) if hand_over else self.report(status, error)
        if status != C.CUDALOAD_OK and check:
            from ._errors import error_for_status
            status_text = report.status_text
            raise error_for_status(status)(_answer_first(function, status_text, error),
                                           status=status, status_text=status_text,
                                           detail=error, function=function, report=report)
        return report

    # -- environment -------------------------------------------------------
    def env_name(self) -> str:
        """"LD_LIBRARY_PATH" on Linux, "PATH" on Windows."""
        return self._lib.call("cudaload_env_name") or ""

    def env_compose(self, current: "Optional[str]" = None) -> str:
        """The search-path value with the plan's folders first, before
        ``current`` (a str, or None for none)."""
        if current is not None:
            _text_arg(current, "current")
        value = self._lib.call("cudaload_env_compose", self.handle, current)
        if value is None:
            from ._errors import Error
            detail = self._lib.call("cudaload_last_error") or ""
            raise Error("cudaload_env_compose: %s" % detail, detail=detail,
                        function="cudaload_env_compose")
        return value

    def env_apply(self) -> None:
        """cudaload_env_apply(): set the composed value in the C environment
        (not os.environ; env_prepend() does both)."""
        status = self._lib.call("cudaload_env_apply", self.handle)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_env_apply")

    def env_check(self, drop_stale_preload: bool = False
                  ) -> "Tuple[List[str], Dict[str, Optional[str]]]":
        """What a program started with env_compose()'s value would get
        (cudaload_env_check, CUDALOAD_1.5), judged by the loader model: the
        warnings (each sentence with its fix), and what the program needs
        beyond the variable, as `cudaload exec` sets it: ``{name: value}``,
        None to unset it (LD_PRELOAD of planned files a DT_RPATH would miss;
        CUDA_PATH, CUDA_HOME or CUDNN_PATH of another CUDA major).
        ``drop_stale_preload``: leave out of LD_PRELOAD an entry that puts
        first a copy lacking what a library binds. Give the changes to the
        child (``subprocess.run(..., env=...)``); nothing here changes
        os.environ."""
        _need(self._lib, "cudaload_env_check")
        flags = C.CUDALOAD_ENV_DROP_STALE_PRELOAD if drop_stale_preload else 0
        status, count = self._lib.env_check(self.handle, flags)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_env_check")
        warnings = [self._lib.call("cudaload_env_warning", self.handle, i) or ""
                    for i in range(count)]
        changes = {}  # type: Dict[str, Optional[str]]
        for i in range(self._lib.call("cudaload_env_change_count", self.handle)):
            name, value = self._lib.env_change(self.handle, i)
            if name is not None:
                changes[name] = value
        return warnings, changes

    # -- manifest, probe and doctor -------------------------------------------
    def load_manifest(self, path: "PathLike") -> "Context":
        """Read a cudaload.yaml manifest (requirements, roots, policy, probe).
        ``path`` is a str, bytes or os.PathLike; a relative one is resolved
        against the current folder; the
        manifest's relative roots against the manifest's folder. Raises
        UnsupportedError in builds without libyaml."""
        _need(self._lib, "cudaload_load_manifest")
        file_path = _absolute(self._lib, path, "manifest", "cudaload_load_manifest")
        status = self._lib.call("cudaload_load_manifest", self.handle, file_path)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_load_manifest", file_path)
        # As in C: the manifest's roots make the next plan scan again.
        self._scanned = False
        return self

    def set_driver(self, path: "Optional[PathLike]") -> None:
        """Choose the driver library the probe opens: ``path`` is a str,
        bytes or os.PathLike (a relative one is resolved against the
        current folder), or None for the default."""
        _need(self._lib, "cudaload_set_driver")
        status = self._lib.call("cudaload_set_driver", self.handle, None if path is None else
                                _absolute(self._lib, path, "driver", "cudaload_set_driver"))
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_set_driver")

    def probe(self, out_of_process: bool = False, timeout: float = 0.0) -> "Probe":
        """Run the staged GPU probe (cudaload_probe_run)."""
        return self._probe(out_of_process, timeout, None)[0]

    def _probe(self, out_of_process: bool, timeout: float,
               fmt: "Optional[int]") -> "Tuple[Probe, Optional[str]]":
        """The probe, and with fmt its document as the C library writes it
        (cudaload_probe_report: the one schema of docs/probe.md)."""
        lib = self._lib
        for name in ("cudaload_probe_run", "cudaload_probe_free", "cudaload_probe_summary"):
            _need(lib, name)
        flags = C.CUDALOAD_PROBE_OUT_OF_PROCESS if out_of_process else 0
        status, handle = lib.probe_run(self.handle, flags, float(timeout))
        if status != C.CUDALOAD_OK or handle is None:
            _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_probe_run")
        from ._results import _read_probe
        try:
            document = None
            if fmt is not None:
                _need(lib, "cudaload_probe_report")
                status, document = lib.probe_report(handle, fmt)
                if status != C.CUDALOAD_OK or document is None:
                    _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_probe_report")
            return _read_probe(lib, handle), document
        finally:
            lib.call("cudaload_probe_free", handle)

    def doctor(self, format: str = "text", probe: bool = False, color: bool = False,
               probe_out_of_process: bool = False, short: bool = False,
               marks: bool = False) -> "DoctorReport":
        """cudaload_doctor(): the whole diagnosis as one report. ``format``
        is the str "text", "json" or "yaml". ``short``: the text's short
        form, the answer first on one screen (CUDALOAD_DOCTOR_SHORT), with
        the marks U+2713/U+2717 for ok/FAIL when ``marks``."""
        from ._results import _FORMATS, DoctorReport, _read_problems
        lib = self._lib
        _need(lib, "cudaload_doctor")
        if not isinstance(format, str):
            raise TypeError("format: expected a str, got %s" % type(format).__name__)
        if format not in _FORMATS:
            raise ValueError("format %r: expected text, json or yaml" % (format,))
        flags = 0
        if probe:
            flags |= C.CUDALOAD_DOCTOR_PROBE
        if probe_out_of_process:
            flags |= C.CUDALOAD_DOCTOR_PROBE | C.CUDALOAD_DOCTOR_PROBE_OUT_OF_PROCESS
        if color:
            flags |= C.CUDALOAD_DOCTOR_COLOR
        if short:
            flags |= C.CUDALOAD_DOCTOR_SHORT
        if short and marks:
            flags |= C.CUDALOAD_DOCTOR_MARKS
        status, text = lib.doctor(self.handle, _FORMATS[format], flags)
        if status != C.CUDALOAD_OK or text is None:
            _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_doctor")
        assert text is not None
        return DoctorReport(text, format, _read_problems(lib, self.handle))


def _preload_flags(rtld_global: bool, all_sublibs: bool, partial: bool = False) -> int:
    flags = 0
    if rtld_global:
        flags |= C.CUDALOAD_PRELOAD_GLOBAL
    if all_sublibs:
        flags |= C.CUDALOAD_PRELOAD_ALL_SUBLIBS
    if partial:
        flags |= C.CUDALOAD_PRELOAD_PARTIAL
    return flags


# --------------------------------------------------------------------------
# Reading a context's lists back
# --------------------------------------------------------------------------
# Functions of (backend, cudaload_ctx *, root origins), shared by the
# Context methods and _ContextReader. They call the C functions directly
# (backend.function(), backend.text()) rather than through backend.call():
# a report is hundreds of calls, and the plan is read right after the
# preload, when Python code runs several times slower than before it (the
# dynamic loader has just mapped and relocated cuDNN and cuBLAS; measured,
# not explained further).


def _read_requirements(lib: "Any", ctx: "Any", origins: "Dict[str, str]") -> "List[str]":
    text = lib.text
    count, requirement = map(lib.function, (
        "cudaload_requirement_count", "cudaload_requirement_text"))
    return [text(requirement(ctx, i)) or "" for i in range(count(ctx))]


def _read_roots(lib: "Any", ctx: "Any", origins: "Dict[str, str]") -> "List[Root]":
    text = lib.text
    count, path_of, origin_of, status_of = map(lib.function, (
        "cudaload_root_count", "cudaload_root_path", "cudaload_root_origin",
        "cudaload_root_status"))
    # A libcudaload from before the tiers has no cudaload_root_tier.
    tier_of = lib.function("cudaload_root_tier") if lib.has("cudaload_root_tier") else None
    # The names are the library's (cudaload_root_status_name); the table is
    # for a library older than CUDALOAD_1.1.
    status_name = (lib.function("cudaload_root_status_name")
                   if lib.has("cudaload_root_status_name") else None)
    out = []
    for i in range(count(ctx)):
        path = text(path_of(ctx, i)) or ""
        origin = text(origin_of(ctx, i)) or ""
        if origin == "explicit":
            # Only a label given to Context.add_root(); the origins of
            # every other root are the C library's, the same as the tool's.
            origin = origins.get(path, origin)
        code = status_of(ctx, i)
        tier = (text(tier_of(ctx, i)) or "") if tier_of is not None else ""
        named = text(status_name(code)) if status_name else None
        out.append(Root(path, origin, named or C.ROOT_STATUS_NAMES.get(code, "unreadable"),
                        code, tier))
    return out


def _read_libraries(lib: "Any", ctx: "Any", origins: "Dict[str, str]") -> "List[Library]":
    text = lib.text
    count, name, family, major, cuda_major_of, version, version_source, version_file, \
        path, root, include_dir, machine = map(lib.function, (
            "cudaload_library_count", "cudaload_library_name", "cudaload_library_family",
            "cudaload_library_major", "cudaload_library_cuda_major", "cudaload_library_version",
            "cudaload_library_version_source", "cudaload_library_version_file",
            "cudaload_library_path", "cudaload_library_root", "cudaload_library_include_dir",
            "cudaload_library_machine"))
    out = []
    for i in range(count(ctx)):
        cuda_major = cuda_major_of(ctx, i)
        out.append(Library(
            text(name(ctx, i)) or "", text(family(ctx, i)) or "", major(ctx, i),
            cuda_major if cuda_major > 0 else None, text(version(ctx, i)) or None,
            text(version_source(ctx, i)) or "none", text(version_file(ctx, i)) or None,
            text(path(ctx, i)) or "", root(ctx, i), text(include_dir(ctx, i)) or None,
            text(machine(ctx, i)) or None))
    return out


def _read_plan(lib: "Any", ctx: "Any", origins: "Dict[str, str]") -> "List[PlanEntry]":
    text = lib.text
    count, name, major, path, reason, state_of, loaded_path = map(lib.function, (
        "cudaload_plan_count", "cudaload_plan_name", "cudaload_plan_major",
        "cudaload_plan_path", "cudaload_plan_reason", "cudaload_plan_state",
        "cudaload_plan_loaded_path"))
    state_name = (lib.function("cudaload_plan_state_name")
                  if lib.has("cudaload_plan_state_name") else None)
    out = []
    for i in range(count(ctx)):
        state = state_of(ctx, i)
        named = text(state_name(state)) if state_name else None
        out.append(PlanEntry(
            text(name(ctx, i)) or "", major(ctx, i), text(path(ctx, i)) or "",
            text(reason(ctx, i)) or "", named or "unknown(%d)" % state,
            state, text(loaded_path(ctx, i)) or None))
    return out


def _read_conflicts(lib: "Any", ctx: "Any", origins: "Dict[str, str]") -> "List[Conflict]":
    text = lib.text
    count, path, message = map(lib.function, (
        "cudaload_conflict_count", "cudaload_conflict_path", "cudaload_conflict_text"))
    return [Conflict(text(path(ctx, i)) or "", text(message(ctx, i)) or "")
            for i in range(count(ctx))]


def _scan_report(lib: "Any", ctx: "Any", fmt: int) -> str:
    """cudaload_scan_report(ctx, fmt): the scan report, in the C tool's
    words (text) or schema (JSON, YAML). MissingFunctionError from a
    libcudaload older than 1.1; a C error raised."""
    _need(lib, "cudaload_scan_report")
    status, text = lib.scan_report(ctx, fmt)
    if status != C.CUDALOAD_OK or text is None:
        _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_scan_report")
    assert text is not None
    return text


def _read_table(lib: "Any", ctx: "Any", origins: "Dict[str, str]") -> "Optional[str]":
    """Report.table()'s text, or None from a libcudaload without it."""
    if not lib.has("cudaload_scan_report"):
        return None
    return _scan_report(lib, ctx, C.CUDALOAD_FORMAT_TEXT)


def _read_text(lib: "Any", ctx: "Any", origins: "Dict[str, str]") -> "Optional[str]":
    """str(Report)'s plan text, written by the C library
    (cudaload_plan_report()), or None from a libcudaload without it."""
    if not lib.has("cudaload_plan_report"):
        return None
    status, text = lib.plan_report(ctx, C.CUDALOAD_FORMAT_TEXT)
    if status != C.CUDALOAD_OK or text is None:
        _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_plan_report")
    return text


_READERS = {"requirements": _read_requirements, "roots": _read_roots,
            "libraries": _read_libraries, "plan": _read_plan, "conflicts": _read_conflicts,
            "_table": _read_table, "_text": _read_text}


class _ContextReader:
    """The C context of a Report that setup(), preload() or scan() returned
    (their Context is gone): reads each field of _LAZY_FIELDS on its first
    use, and destroys the context once every list is read, or when the
    Report goes (``__del__``; it holds no reference back, so it is never in
    a reference cycle). Nothing changes the context after the hand-over, so
    a field read late is what it would have been at once. Thread-safe: one
    lock per context."""

    __slots__ = ("_lib", "_ctx", "_origins", "_status", "_lock", "_values")

    def __init__(self, lib: "Any", ctx: "Any", origins: "Dict[str, str]", status: int) -> None:
        self._lib = lib
        self._ctx = ctx
        self._origins = origins
        self._status = status
        self._lock = _thread.allocate_lock()
        self._values: "Dict[str, Any]" = {}

    def read(self, field: str) -> "Any":
        """The value of ``field`` (one of _LAZY_FIELDS), read once."""
        with self._lock:
            if field in self._values:
                return self._values[field]
            lib = self._lib
            if field == "status_text":
                value = lib.call("cudaload_strerror", self._status) or ""
            elif field == "env_name":
                value = lib.call("cudaload_env_name") or ""
            else:
                value = _READERS[field](lib, self._ctx, self._origins)
            self._values[field] = value
            if self._ctx is not None and all(f in self._values for f in _CONTEXT_FIELDS):
                self._destroy()
            return value

    def _destroy(self) -> None:
        ctx, self._ctx = self._ctx, None
        if ctx is not None:
            self._lib.call("cudaload_destroy", ctx)

    def __del__(self) -> None:
        try:
            self._destroy()
        except Exception:  # interpreter shutdown
            pass


# --------------------------------------------------------------------------
# One-call functions
# --------------------------------------------------------------------------

# Windows: directories added with os.add_dll_directory stay added while
# their cookies live.
_dll_directories: "List[Any]" = []


def _windows_after_preload(report: "Report") -> None:
    """Windows: the C preload prepended the plan's folders to PATH in the
    process environment block and called AddDllDirectory; Python's os.environ
    is a snapshot, so bring its PATH up to date, and add the folders with
    os.add_dll_directory for extension modules Python imports later."""
    if sys.platform != "win32":  # pragma: no cover - exercised on Windows only
        return
    import ctypes
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    size = kernel32.GetEnvironmentVariableW("PATH", None, 0)
    if size:
        buffer = ctypes.create_unicode_buffer(size)
        if kernel32.GetEnvironmentVariableW("PATH", buffer, size):
            if os.environ.get("PATH") != buffer.value:
                os.environ["PATH"] = buffer.value
    for folder in sorted({os.path.dirname(e.path) for e in report.loaded}):
        if folder and os.path.isdir(folder) and hasattr(os, "add_dll_directory"):
            _dll_directories.append(os.add_dll_directory(folder))


def scan(roots: "Optional[Iterable[PathLike]]" = None,
         site_packages: "Union[Iterable[PathLike], None, bool]" = None,
         defaults: bool = True, target: str = "host", *,
         allow_writable_roots: bool = False) -> "Report":
    """Scan ``roots`` (the "explicit" tier, first, in order: a list of str,
    bytes or os.PathLike paths, a relative one resolved against the current
    folder; a single path is a TypeError), then ``site_packages`` (the
    "environment" tier, origin "interpreter": None, this interpreter's site
    folders; a list of paths, those; False, none; searched whatever
    ``defaults`` says), then, with ``defaults``, the C library's default
    roots (its own environment guess when ``site_packages`` added none,
    CUDNN_PATH/CUDA_PATH/CUDA_HOME, the toolkits, the system): see
    Context(). ``target`` is the str "host", "linux" or "windows". Loads
    nothing. Returns a
    Report whose ``libraries`` and ``roots`` say what was found where;
    ``table()`` is the text ``cudaload scan`` prints (the C library's) and
    ``scan_dict()`` the data of its JSON report.
    A root in ``roots`` that does not exist raises NotFoundError, with the
    Report as its ``report`` (``cudaload scan`` prints it and exits 3).
    ``allow_writable_roots``: as for Context()."""
    with Context(roots, site_packages, defaults, target,
                 allow_writable_roots=allow_writable_roots) as ctx:
        ctx.scan()
        return ctx._hand_over_report()


def preload(require: "Specs", roots: "Optional[Iterable[PathLike]]" = None,
            site_packages: "Union[Iterable[PathLike], None, bool]" = None,
            defaults: bool = True, rtld_global: bool = False,
            all_sublibs: bool = False, check: bool = True, *,
            partial: bool = False, for_: "Any" = None,
            allow_writable_roots: bool = False) -> "Report":
    """Scan, plan and load the requirements by absolute path. ``require``
    is a str ("cudnn=9", "cudnn=8,cublas=12") or an iterable of str.
    ``roots`` (explicit tier), ``site_packages`` (environment tier; None:
    this interpreter's site folders, False: none) and ``defaults`` (the C
    library's default roots) choose the folders searched, as for scan()
    and Context(). Arguments of the wrong type raise TypeError, a NUL
    character or an empty path InvalidArgumentError, naming the argument,
    before anything is loaded.
    All or nothing: a requirement without a file, or another major known
    to be in the global scope, loads nothing ("nothing was loaded" in the
    error); ``partial`` (CUDALOAD_PRELOAD_PARTIAL) loads what can be
    anyway. Raises NotFoundError (a root in ``roots`` does not exist:
    nothing is loaded) / UnsatisfiedError / LoadFailedError /
    ConflictError (with ``.detail`` and ``.report``) unless ``check`` is
    false. ``allow_writable_roots``: as for Context()."""
    specs = _spec_list(require)  # checked before the context is made
    with Context(roots, site_packages, defaults,
                 allow_writable_roots=allow_writable_roots) as ctx:
        ctx.require(specs)
        ctx.require_for(for_)
        # _preload scans first: a root that does not exist stops it there.
        report = ctx._preload(rtld_global, all_sublibs, check, hand_over=True,
                              partial=partial)
    _windows_after_preload(report)
    _warn(report)
    return report


def _warn(report: "Report") -> None:
    """Emit the plan's warnings once, as one CudaloadWarning attributed to
    the caller of setup()/preload() (they also stay in report.warnings)."""
    if report.warnings:
        import warnings
        from ._errors import CudaloadWarning
        warnings.warn("cudaload: " + "\ncudaload: ".join(report.warnings), CudaloadWarning,
                      stacklevel=3)


def setup(require: "Specs" = (), roots: "Optional[Iterable[PathLike]]" = None,
          site_packages: "Union[Iterable[PathLike], None, bool]" = None,
          isolate: bool = False, probe: bool = False, *,
          defaults: bool = True, rtld_global: bool = False,
          all_sublibs: bool = False, probe_timeout: "Optional[float]" = None,
          check: bool = True, partial: bool = False,
          for_: "Any" = None, allow_writable_roots: bool = False) -> "Report":
    """Make the required CUDA libraries load: scan, plan, preload, and
    optionally probe, in one call. Call it before ``import torch`` (or any
    module that loads cuDNN/cuBLAS).

    All or nothing: everything is planned before anything is loaded, and
    when a requirement has no usable file (UnsatisfiedError) or another
    major is known to be in the global symbol scope (ConflictError,
    unless ``isolate``), nothing is loaded and the error says so
    ("nothing was loaded"), so that a corrected call starts from a clean
    process. ``partial=True`` loads whatever can be loaded anyway.

    Args:
        require: specs: an iterable of str such as ``["cudnn=8", "cudnn=9",
            "cublas=12"]``, or one str ("cudnn=9", or "cudnn=9,cublas=12").
            Not bytes, and every item a str.
        for_: the program, instead of (or beside) specs: what it needs is
            read from it (Context.require_for): the name of a module or
            distribution installed here (``for_="onnxruntime"``), or the
            path of a binary, an interpreter or a venv. The plan then also
            keeps what the program's own files need, and the report's
            requirements say where each came from.
        roots: the "explicit" tier, searched first and winning over every
            other root, in order: a list (any iterable) of
            str, bytes or os.PathLike paths (bytes and names that are not
            UTF-8 are kept exactly, as os.fsencode()/os.fsdecode() do). A
            single path is a TypeError: write ``roots=[path]``. A
            relative path is resolved against the current folder when
            setup() is called, and the report shows it absolute. A root
            that does not exist raises NotFoundError before anything is
            loaded (with ``check``; else the report says it).
        site_packages: the "environment" tier (origin "interpreter"),
            searched next and winning over CUDNN_PATH, CUDA_PATH, the
            toolkits and the system even when they hold a newer version:
            None means this interpreter's site folders
            (default_site_packages()), so a venv's NVIDIA wheels are found
            with no arguments; a list like ``roots``, those folders
            instead; False, none (the C library then guesses the
            environment itself: VIRTUAL_ENV, CONDA_PREFIX, the python3 on
            PATH, with ``defaults``). Searched whatever ``defaults`` says.
        isolate: you will open the consumers of a required major isolated
            (isolated_import(), isolated_open()), so another major already
            in the global symbol scope is reported in ``report.conflicts``
            instead of raising ConflictError, and the plan is loaded.
        probe: also run the GPU probe; its answer is ``report.probe``.
        defaults: also search the C library's default roots, last: its
            own environment guess (only when ``site_packages`` added no
            folder), the "variable" tier (CUDNN_PATH, CUDA_PATH,
            CUDA_PATH_V*, CUDA_HOME), the "toolkit" tier (/usr/local/cuda*,
            ...) and the "system" tier (ld.so.cache). False leaves out only
            these, never the site folders of ``site_packages``.
        rtld_global: load RTLD_GLOBAL (never with two majors of a family).
        all_sublibs: preload every cuDNN sub-library, not the minimal set.
        probe_timeout: run the probe in a child process killed after this
            many seconds (None: in this process).
        check: raise on failure (default); otherwise return the Report with
            ``ok`` false and the reason in ``error``.
        partial: best effort (CUDALOAD_PRELOAD_PARTIAL): load every file
            that can be even when a requirement is unsatisfied or a
            conflict is known, and still raise (with ``check``) for the
            rest.
        allow_writable_roots: accept folders and libraries other users can
            write to, which are refused by default (whoever can write there
            can run their own code in this process): as for Context().

    Returns:
        A Report: every file planned, why, what was loaded from where,
        the conflicts, and the probe.

    Raises:
        TypeError for an argument of the wrong type, InvalidArgumentError
        (a ValueError) for a NUL character or an empty path, each naming
        the argument ("require[0]: expected a str, got bytes", "roots[1]:
        embedded NUL character"), before anything is loaded; the Error
        subclass of a failure (with ``check``).
    """
    # Read each argument once, as lists: the probe below uses them again
    # (an iterator would be empty the second time).
    require = _spec_list(require)
    if roots is not None:
        roots = _path_list(roots, "roots")
    if site_packages is not None and site_packages is not False:
        site_packages = _path_list(site_packages, "site_packages")
    # preload(), but for ``isolate``: a conflict alone does not stop the load.
    with Context(roots, site_packages, defaults,
                 allow_writable_roots=allow_writable_roots) as ctx:
        ctx.require(require)
        ctx.require_for(for_)
        report = ctx._preload(rtld_global, all_sublibs, False, True, partial, isolate)
    _windows_after_preload(report)
    conflict_only = report.status == C.CUDALOAD_E_CONFLICT and isolate
    if not report.ok and not conflict_only and check:
        from ._errors import error_for_status
        message = _answer_first("cudaload.setup", report.status_text, report.error)
        if report.status == C.CUDALOAD_E_CONFLICT and report.conflicts:
            message += ("\nOpen the consumers with cudaload.isolated_import() and call "
                        "setup(..., isolate=True), or keep the other major out of the "
                        "global scope (no RTLD_GLOBAL).")
        raise error_for_status(report.status)(
            message, status=report.status, status_text=report.status_text,
            detail=report.error, function="cudaload_preload", report=report)
    _warn(report)
    if probe:
        with Context(roots, site_packages, defaults,
                     allow_writable_roots=allow_writable_roots) as ctx:
            ctx.require(require)
            ctx.require_for(for_)
            report.probe = ctx.probe(out_of_process=probe_timeout is not None,
                                     timeout=probe_timeout or 0.0)
    return report


