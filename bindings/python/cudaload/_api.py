"""The Python API over the C API: contexts, reports, setup() and friends.

Everything here goes through one backend object (ctypes or CFFI) that exposes
``call(name, *args)`` and a few out-parameter helpers; see _library.py.

Import time matters (``import cudaload`` runs before ``import torch``, in
every process): this module imports only what the interpreter has loaded at
start-up anyway (os, sys, site) plus ``_thread``. typing, dataclasses, json,
ctypes (for the CFFI backend), threading and contextlib are not imported;
``bench/python-bench`` measures it. Annotations are strings
(``from __future__ import annotations``) and the typing names exist for type
checkers only.
"""

from __future__ import annotations

import _thread
import os
import sys

from . import _constants as C
from ._errors import (Error, MissingFunctionError, UnsupportedError,
                      error_for_status)
from ._library import open_library

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only, never at run time
    import ctypes
    from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

    PathLike = Union[str, "os.PathLike[str]"]
    Specs = Union[str, Iterable[str], None]

__all__ = [
    "Context", "Report", "Root", "Library", "PlanEntry", "Conflict", "Probe",
    "Stage", "Device", "FileInfo", "DoctorReport",
    "setup", "scan", "preload", "probe", "doctor", "env_prepend", "inspect",
    "isolated_import", "isolated_open", "symbol_provider",
    "default_site_packages", "use_backend", "backend", "library_path",
    "library_version",
]

# --------------------------------------------------------------------------
# The loaded library
# --------------------------------------------------------------------------

_state_lock = _thread.allocate_lock()
_native: Any = None


def _load_default() -> Any:
    global _native
    with _state_lock:
        if _native is None:
            _native = open_library()
        return _native

def use_backend(name: str, path: Optional[PathLike] = None) -> str:
    """Switch the default backend ("ctypes" or "cffi"), optionally opening
    libcudaload from ``path``. Returns the path of the library now in use.
    Raises ImportError (listing where it looked) when it cannot be opened."""
    global _native
    library = open_library(name, os.fspath(path) if path is not None else None)
    with _state_lock:
        _native = library
    return library.path


def backend() -> str:
    """The name of the backend in use: "ctypes" or "cffi"."""
    return _load_default().backend


def library_path() -> str:
    """The libcudaload file (or loader name) in use."""
    return _load_default().path


def library_version() -> str:
    """``cudaload_version_string()`` of the library in use ("0.1.0")."""
    return _load_default().call("cudaload_version_string")


def _need(lib: Any, name: str) -> None:
    if not lib.has(name):
        version = lib.call("cudaload_version_string") if lib.has("cudaload_version_string") else "?"
        raise MissingFunctionError(
            "this libcudaload has no %s (%s, version %s): it was built before "
            "that part of the API; update libcudaload" % (name, lib.path, version),
            status=C.CUDALOAD_E_UNSUPPORTED, status_text="not supported",
            function=name)


def _raise(lib: Any, status: int, function: str, what: str = "",
           report: Any = None) -> None:
    """Raise the Error subclass for ``status`` with the last-error text."""
    detail = lib.call("cudaload_last_error") or ""
    status_text = lib.call("cudaload_strerror", status) or ""
    message = "%s%s: %s" % (function, " " + what if what else "", status_text)
    if detail:
        message += "\n" + detail if "\n" in detail else ": " + detail
    raise error_for_status(status)(message, status=status, status_text=status_text,
                                   detail=detail, function=function, report=report)


# --------------------------------------------------------------------------
# Report objects
# --------------------------------------------------------------------------



# Plain classes with __slots__ rather than dataclasses: importing dataclasses
# (and the inspect, ast, dis, tokenize... it pulls in) and generating the
# methods of eleven classes cost more than everything else of
# ``import cudaload``. _Record gives them what the dataclasses gave: keyword
# and positional construction, field order, repr, equality and to_dict().


def _plain(value: Any) -> Any:
    """dataclasses.asdict()'s conversion: records to dicts, recursively."""
    if isinstance(value, _Record):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


class _Record:
    """Base of the report records: ``__slots__`` lists the fields in order."""

    __slots__: Tuple[str, ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        """Every field as plain data, in field order (for json.dumps)."""
        return {name: _plain(getattr(self, name)) for name in self.__slots__}

    def _values(self) -> Tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % (name, getattr(self, name)) for name in self.__slots__))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclasses were


class Root(_Record):
    """A folder the scan searched: its path, where it came from
    ("explicit", "site-packages", "CUDA_PATH", "toolkit", "ld.so.cache", ...),
    and whether it was read ("ok", "not found", "not a folder", ...)."""

    __slots__ = ("path", "origin", "status", "status_code")
    path: str
    origin: str
    status: str
    status_code: int

    def __init__(self, path: str, origin: str, status: str, status_code: int) -> None:
        self.path = path
        self.origin = origin
        self.status = status
        self.status_code = status_code


class Library(_Record):
    """A library file the scan found, with its version and where the
    version came from ("dist-info", "file-name", "header", "versioninfo",
    "none"). ``root`` indexes Report.roots."""

    __slots__ = ("name", "family", "major", "cuda_major", "version", "version_source",
                 "version_file", "path", "root")
    name: str
    family: str
    major: int
    cuda_major: Optional[int]
    version: Optional[str]
    version_source: str
    version_file: Optional[str]
    path: str
    root: int

    def __init__(self, name: str, family: str, major: int, cuda_major: Optional[int],
                 version: Optional[str], version_source: str, version_file: Optional[str],
                 path: str, root: int) -> None:
        self.name = name
        self.family = family
        self.major = major
        self.cuda_major = cuda_major
        self.version = version
        self.version_source = version_source
        self.version_file = version_file
        self.path = path
        self.root = root


class PlanEntry(_Record):
    """One file of the plan: why it is there (``reason``), what happened to
    it (``state``: "planned", "loaded", "already-loaded", "loaded-elsewhere",
    "failed", "not-needed") and the file the process actually uses."""

    __slots__ = ("name", "major", "path", "reason", "state", "state_code", "loaded_path")
    name: str
    major: int
    path: str
    reason: str
    state: str
    state_code: int
    loaded_path: Optional[str]

    def __init__(self, name: str, major: int, path: str, reason: str, state: str,
                 state_code: int, loaded_path: Optional[str]) -> None:
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
    path: str
    text: str

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text


class Stage(_Record):
    """One stage of the GPU probe."""

    __slots__ = ("name", "status", "message", "ms")
    name: str
    status: str
    message: str
    ms: float

    def __init__(self, name: str, status: str, message: str, ms: float) -> None:
        self.name = name
        self.status = status
        self.message = message
        self.ms = ms


class Device(_Record):
    """A CUDA device the probe saw. ``capability`` is major*10+minor."""

    __slots__ = ("name", "capability", "memory_mib", "uuid")
    name: str
    capability: int
    memory_mib: int
    uuid: str

    def __init__(self, name: str, capability: int, memory_mib: int, uuid: str) -> None:
        self.name = name
        self.capability = capability
        self.memory_mib = memory_mib
        self.uuid = uuid


class Probe(_Record):
    """The GPU probe's answer: ``gpu_ok`` and ``summary`` ("GPU usable: ..."
    or "fall back to CPU, because ..."), the reason, and every stage."""

    __slots__ = ("gpu_ok", "verdict", "reason", "reason_code", "summary", "stages",
                 "driver_path", "driver_version", "runtime_version", "devices")
    gpu_ok: bool
    verdict: str
    reason: str
    reason_code: int
    summary: str
    stages: List[Stage]
    driver_path: str
    driver_version: int
    runtime_version: int
    devices: List[Device]

    def __init__(self, gpu_ok: bool, verdict: str, reason: str, reason_code: int,
                 summary: str, stages: List[Stage], driver_path: str, driver_version: int,
                 runtime_version: int, devices: List[Device]) -> None:
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
        lines = [self.summary]
        for stage in self.stages:
            lines.append("  %-8s %-8s %8.1f ms  %s" % (stage.name, stage.status, stage.ms, stage.message))
        return "\n".join(lines)


class FileInfo(_Record):
    """What cudaload_inspect() read from an ELF or PE file's headers."""

    __slots__ = ("path", "format", "machine", "bits", "soname", "needed", "runpath",
                 "rpath", "version")
    path: str
    format: str
    machine: str
    bits: int
    soname: Optional[str]
    needed: List[str]
    runpath: Optional[str]
    rpath: Optional[str]
    version: Optional[str]

    def __init__(self, path: str, format: str, machine: str, bits: int,
                 soname: Optional[str], needed: List[str], runpath: Optional[str],
                 rpath: Optional[str], version: Optional[str]) -> None:
        self.path = path
        self.format = format
        self.machine = machine
        self.bits = bits
        self.soname = soname
        self.needed = needed
        self.runpath = runpath
        self.rpath = rpath
        self.version = version


class Report(_Record):
    """What a scan, plan or preload found and did.

    ``status`` is the C status of the last step (0 when everything worked),
    ``error`` its last-error text (what is missing, where it looked, what it
    rejected and why, the fix). ``plan`` lists every file with its reason and
    state; ``conflicts`` the other majors in the global scope; ``probe`` the
    GPU probe when one was run.
    """

    __slots__ = ("requirements", "roots", "libraries", "plan", "conflicts", "status",
                 "status_text", "error", "env_name", "target", "probe", "backend",
                 "library_path")
    requirements: List[str]
    roots: List[Root]
    libraries: List[Library]
    plan: List[PlanEntry]
    conflicts: List[Conflict]
    status: int
    status_text: str
    error: str
    env_name: str
    target: str
    probe: Optional[Probe]
    backend: str
    library_path: str

    def __init__(self, requirements: Optional[List[str]] = None,
                 roots: Optional[List[Root]] = None,
                 libraries: Optional[List[Library]] = None,
                 plan: Optional[List[PlanEntry]] = None,
                 conflicts: Optional[List[Conflict]] = None,
                 status: int = 0, status_text: str = "success", error: str = "",
                 env_name: str = "", target: str = "", probe: Optional[Probe] = None,
                 backend: str = "", library_path: str = "") -> None:
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

    @property
    def ok(self) -> bool:
        """True when the last step returned CUDALOAD_OK."""
        return self.status == C.CUDALOAD_OK

    @property
    def loaded(self) -> List[PlanEntry]:
        """The plan entries the process now uses (loaded by cudaload or
        already there)."""
        return [e for e in self.plan if e.state_code in (
            C.CUDALOAD_STATE_LOADED, C.CUDALOAD_STATE_ALREADY_LOADED,
            C.CUDALOAD_STATE_LOADED_ELSEWHERE)]

    def scan_dict(self) -> Dict[str, Any]:
        """The scan part, in the schema of ``cudaload scan --format json``."""
        return {
            "schema_version": 1,
            "target": self.target,
            "roots": [{"path": r.path, "origin": r.origin, "status": r.status} for r in self.roots],
            "libraries": [{
                "name": lib.name, "family": lib.family, "major": lib.major,
                "cuda_major": lib.cuda_major, "version": lib.version,
                "version_source": lib.version_source, "version_file": lib.version_file,
                "path": lib.path, "root": lib.root,
            } for lib in self.libraries],
        }

    def table(self) -> str:
        """The scan part as ``cudaload scan`` prints it: an aligned table,
        the summary line, and the explicit roots that could not be read."""
        header = ["NAME", "FAMILY", "MAJOR", "VERSION", "SOURCE", "PATH"]
        rows = [[lib.name, lib.family, str(lib.major), lib.version or "-",
                 lib.version_source, lib.path] for lib in self.libraries]
        widths = [max([len(header[c])] + [len(r[c]) for r in rows]) for c in range(5)]
        lines = []
        for row in [header] + rows:
            lines.append("".join("%-*s  " % (widths[c], row[c]) for c in range(5)) + row[5])
        n, m = len(self.libraries), len(self.roots)
        lines.append("")
        lines.append("%d %s in %d %s" % (n, "library" if n == 1 else "libraries",
                                         m, "root" if m == 1 else "roots"))
        for root in self.roots:
            if root.status_code != C.CUDALOAD_OK and root.origin == "explicit":
                lines.append("root %s: %s" % (root.status, root.path))
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        lines = []
        if self.requirements:
            lines.append("requirements: " + ", ".join(self.requirements))
        lines.append("status: %s (%d)" % (self.status_text, self.status))
        if self.plan:
            lines.append("plan:")
            width = max(len(e.name) for e in self.plan)
            for e in self.plan:
                lines.append("  %-*s  %-2d  %-16s  %s" % (width, e.name, e.major, e.state, e.path))
                lines.append("  %-*s      why: %s" % (width, "", e.reason))
                if e.loaded_path and e.loaded_path != e.path:
                    lines.append("  %-*s      uses: %s" % (width, "", e.loaded_path))
        for c in self.conflicts:
            lines.append("conflict: %s\n  %s" % (c.path, c.text))
        if self.error:
            lines.append("error:\n" + "\n".join("  " + line for line in self.error.splitlines()))
        if self.probe is not None:
            lines.append("probe: " + str(self.probe))
        lines.append("%d libraries found in %d roots (%s backend, %s)"
                     % (len(self.libraries), len(self.roots), self.backend, self.library_path))
        return "\n".join(lines)


class DoctorReport:
    """cudaload_doctor()'s report. ``str()`` is the text (or JSON/YAML) as
    the command-line tool prints it; ``to_dict()`` parses a JSON report."""

    def __init__(self, text: str, format: str) -> None:
        self.text = text
        self.format = format

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return "DoctorReport(format=%r, %d characters)" % (self.format, len(self.text))

    def to_dict(self) -> Dict[str, Any]:
        """The JSON report as data (format="json" only)."""
        if self.format != "json":
            raise ValueError("to_dict() needs doctor(format='json')")
        import json
        return json.loads(self.text)


# --------------------------------------------------------------------------
# Context
# --------------------------------------------------------------------------

_TARGETS = {"host": C.CUDALOAD_TARGET_HOST, "linux": C.CUDALOAD_TARGET_LINUX,
            "windows": C.CUDALOAD_TARGET_WINDOWS}
_FORMATS = {"text": C.CUDALOAD_FORMAT_TEXT, "json": C.CUDALOAD_FORMAT_JSON,
            "yaml": C.CUDALOAD_FORMAT_YAML}


def default_site_packages() -> List[str]:
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


def _specs(require: Specs) -> List[str]:
    if require is None:
        return []
    if isinstance(require, str):
        return [require]
    return [str(s) for s in require]


class Context:
    """A libcudaload context: roots, the scanned inventory, requirements and
    a plan. Not thread-safe (as the C context); use one per thread.

    Args:
        roots: folders searched first, in order (absolute paths).
        site_packages: Python site folders searched next; None means
            default_site_packages() (when ``defaults`` is true).
        defaults: also search the C library's default roots (CUDA_PATH,
            toolkits, ld.so.cache, ...).
        target: "host", "linux" or "windows" naming conventions.
    """

    def __init__(self, roots: Optional[Iterable[PathLike]] = None,
                 site_packages: Optional[Iterable[PathLike]] = None,
                 defaults: bool = True, target: str = "host") -> None:
        self._lib = _load_default()
        self._ctx: Any = None
        self._origins: Dict[str, str] = {}
        self._target = target
        flags = 0 if defaults else C.CUDALOAD_NO_DEFAULT_ROOTS
        ctx = self._lib.call("cudaload_create", flags)
        if ctx is None:
            _raise(self._lib, C.CUDALOAD_E_NO_MEMORY, "cudaload_create")
        self._ctx = ctx
        seen = set()
        for root in roots or ():
            self.add_root(root, "explicit", seen)
        if site_packages is None:
            site_packages = default_site_packages() if defaults else []
        for folder in site_packages:
            self.add_root(folder, "site-packages", seen)
        if target not in _TARGETS:
            raise ValueError("target %r: expected host, linux or windows" % (target,))
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

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    @property
    def handle(self) -> Any:
        """The ``cudaload_ctx *`` of the backend in use."""
        if self._ctx is None:
            raise ValueError("this cudaload Context is closed")
        return self._ctx

    # -- roots and scan ---------------------------------------------------
    def add_root(self, folder: PathLike, origin: str = "explicit",
                 _seen: Optional[set] = None) -> None:
        """Search ``folder`` (absolute) before the default roots."""
        path = os.fspath(folder)
        if _seen is not None:
            key = os.path.normcase(os.path.abspath(path)) if os.path.isabs(path) else path
            if key in _seen:
                return
            _seen.add(key)
        status = self._lib.call("cudaload_add_root", self.handle, path)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_add_root", path)
        self._origins.setdefault(path, origin)

    def scan(self) -> "Context":
        """Scan the roots (never loads anything). Returns self."""
        status = self._lib.call("cudaload_scan", self.handle)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_scan")
        return self

    def roots(self) -> List[Root]:
        """Every root the last scan searched."""
        lib, ctx = self._lib, self.handle
        out = []
        for i in range(lib.call("cudaload_root_count", ctx)):
            path = lib.call("cudaload_root_path", ctx, i) or ""
            origin = lib.call("cudaload_root_origin", ctx, i) or ""
            if origin == "explicit":
                origin = self._origins.get(path, origin)
            code = lib.call("cudaload_root_status", ctx, i)
            out.append(Root(path, origin, C.ROOT_STATUS_NAMES.get(code, "unreadable"), code))
        return out

    def libraries(self) -> List[Library]:
        """Every library the last scan found, in report order."""
        lib, ctx = self._lib, self.handle
        out = []
        for i in range(lib.call("cudaload_library_count", ctx)):
            cuda_major = lib.call("cudaload_library_cuda_major", ctx, i)
            out.append(Library(
                name=lib.call("cudaload_library_name", ctx, i) or "",
                family=lib.call("cudaload_library_family", ctx, i) or "",
                major=lib.call("cudaload_library_major", ctx, i),
                cuda_major=cuda_major if cuda_major > 0 else None,
                version=lib.call("cudaload_library_version", ctx, i) or None,
                version_source=lib.call("cudaload_library_version_source", ctx, i) or "none",
                version_file=lib.call("cudaload_library_version_file", ctx, i) or None,
                path=lib.call("cudaload_library_path", ctx, i) or "",
                root=lib.call("cudaload_library_root", ctx, i)))
        return out

    # -- requirements, plan, preload -----------------------------------
    def require(self, specs: Specs) -> "Context":
        """Add requirements ("cudnn=8", "cublas>=12.4", "cudnn=8,cudnn=9").
        Raises BadSpecError naming what could not be read."""
        for spec in _specs(specs):
            status = self._lib.call("cudaload_require", self.handle, spec)
            if status != C.CUDALOAD_OK:
                _raise(self._lib, status, "cudaload_require", repr(spec))
        return self

    def requirements(self) -> List[str]:
        """The requirements added, normalised ("cudnn=8")."""
        lib, ctx = self._lib, self.handle
        return [lib.call("cudaload_requirement_text", ctx, i) or ""
                for i in range(lib.call("cudaload_requirement_count", ctx))]

    def plan(self, rtld_global: bool = False, all_sublibs: bool = False,
             check: bool = True) -> "Report":
        """Resolve the requirements into a plan (loads nothing)."""
        status = self._lib.call("cudaload_plan", self.handle, _preload_flags(rtld_global, all_sublibs))
        return self._finish(status, "cudaload_plan", check)

    def preload(self, rtld_global: bool = False, all_sublibs: bool = False,
                check: bool = True) -> "Report":
        """Plan and load the plan by absolute path (RTLD_LOCAL unless
        ``rtld_global``). With ``check`` a failure raises the Error subclass
        of its status (UnsatisfiedError, LoadFailedError, ConflictError) with
        the report attached as ``.report``; without, the report says it."""
        status = self._lib.call("cudaload_preload", self.handle, _preload_flags(rtld_global, all_sublibs))
        return self._finish(status, "cudaload_preload", check)

    def plan_entries(self) -> List[PlanEntry]:
        """The plan, in load order."""
        lib, ctx = self._lib, self.handle
        out = []
        for i in range(lib.call("cudaload_plan_count", ctx)):
            state = lib.call("cudaload_plan_state", ctx, i)
            out.append(PlanEntry(
                name=lib.call("cudaload_plan_name", ctx, i) or "",
                major=lib.call("cudaload_plan_major", ctx, i),
                path=lib.call("cudaload_plan_path", ctx, i) or "",
                reason=lib.call("cudaload_plan_reason", ctx, i) or "",
                state=C.STATE_NAMES.get(state, "unknown(%d)" % state),
                state_code=state,
                loaded_path=lib.call("cudaload_plan_loaded_path", ctx, i) or None))
        return out

    def conflicts(self) -> List[Conflict]:
        """Other majors of required families in the global symbol scope."""
        lib, ctx = self._lib, self.handle
        return [Conflict(lib.call("cudaload_conflict_path", ctx, i) or "",
                         lib.call("cudaload_conflict_text", ctx, i) or "")
                for i in range(lib.call("cudaload_conflict_count", ctx))]

    def report(self, status: int = C.CUDALOAD_OK, error: str = "") -> Report:
        """A Report of the context as it stands."""
        lib = self._lib
        target = self._target
        if target == "host":
            target = "windows" if sys.platform == "win32" else "linux"
        return Report(
            requirements=self.requirements(), roots=self.roots(),
            libraries=self.libraries(), plan=self.plan_entries(),
            conflicts=self.conflicts(), status=status,
            status_text=lib.call("cudaload_strerror", status) or "",
            error=error, env_name=lib.call("cudaload_env_name") or "",
            target=target, backend=lib.backend, library_path=lib.path)

    def _finish(self, status: int, function: str, check: bool) -> Report:
        error = (self._lib.call("cudaload_last_error") or "") if status != C.CUDALOAD_OK else ""
        report = self.report(status, error)
        if status != C.CUDALOAD_OK and check:
            status_text = report.status_text
            message = "%s: %s" % (function, status_text)
            if error:
                message += ("\n" if "\n" in error else ": ") + error
            raise error_for_status(status)(message, status=status, status_text=status_text,
                                           detail=error, function=function, report=report)
        return report

    # -- environment -------------------------------------------------------
    def env_name(self) -> str:
        """"LD_LIBRARY_PATH" on Linux, "PATH" on Windows."""
        return self._lib.call("cudaload_env_name") or ""

    def env_compose(self, current: Optional[str] = None) -> str:
        """The search-path value with the plan's folders first."""
        value = self._lib.call("cudaload_env_compose", self.handle, current)
        if value is None:
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

    # -- manifest, probe and doctor -------------------------------------------
    def load_manifest(self, path: PathLike) -> "Context":
        """Read a cudaload.yaml manifest (requirements, roots, policy, probe).
        Raises UnsupportedError in builds without libyaml."""
        _need(self._lib, "cudaload_load_manifest")
        file_path = os.fspath(path)
        status = self._lib.call("cudaload_load_manifest", self.handle, file_path)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_load_manifest", file_path)
        return self

    def set_driver(self, path: Optional[PathLike]) -> None:
        """Choose the driver library the probe opens (None: the default)."""
        _need(self._lib, "cudaload_set_driver")
        status = self._lib.call("cudaload_set_driver", self.handle,
                                os.fspath(path) if path is not None else None)
        if status != C.CUDALOAD_OK:
            _raise(self._lib, status, "cudaload_set_driver")

    def probe(self, out_of_process: bool = False, timeout: float = 0.0) -> Probe:
        """Run the staged GPU probe (cudaload_probe_run)."""
        lib = self._lib
        for name in ("cudaload_probe_run", "cudaload_probe_free", "cudaload_probe_summary"):
            _need(lib, name)
        flags = C.CUDALOAD_PROBE_OUT_OF_PROCESS if out_of_process else 0
        status, handle = lib.probe_run(self.handle, flags, float(timeout))
        if status != C.CUDALOAD_OK or handle is None:
            _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_probe_run")
        try:
            return _read_probe(lib, handle)
        finally:
            lib.call("cudaload_probe_free", handle)

    def doctor(self, format: str = "text", probe: bool = False, color: bool = False,
               probe_out_of_process: bool = False) -> DoctorReport:
        """cudaload_doctor(): the whole diagnosis as one report."""
        lib = self._lib
        _need(lib, "cudaload_doctor")
        if format not in _FORMATS:
            raise ValueError("format %r: expected text, json or yaml" % (format,))
        flags = 0
        if probe:
            flags |= C.CUDALOAD_DOCTOR_PROBE
        if probe_out_of_process:
            flags |= C.CUDALOAD_DOCTOR_PROBE | C.CUDALOAD_DOCTOR_PROBE_OUT_OF_PROCESS
        if color:
            flags |= C.CUDALOAD_DOCTOR_COLOR
        status, text = lib.doctor(self.handle, _FORMATS[format], flags)
        if status != C.CUDALOAD_OK or text is None:
            _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_doctor")
        assert text is not None
        return DoctorReport(text, format)


def _preload_flags(rtld_global: bool, all_sublibs: bool) -> int:
    flags = 0
    if rtld_global:
        flags |= C.CUDALOAD_PRELOAD_GLOBAL
    if all_sublibs:
        flags |= C.CUDALOAD_PRELOAD_ALL_SUBLIBS
    return flags


def _read_probe(lib: Any, handle: Any) -> Probe:
    def opt(name: str, *args: Any) -> Any:
        return lib.call(name, handle, *args) if lib.has(name) else None

    verdict = opt("cudaload_probe_verdict")
    reason = opt("cudaload_probe_reason") or 0
    stages = []
    for i in range(opt("cudaload_probe_stage_count") or 0):
        status = opt("cudaload_probe_stage_status", i)
        stages.append(Stage(opt("cudaload_probe_stage_name", i) or "",
                            C.STAGE_STATUS_NAMES.get(status, "unknown(%s)" % status),
                            opt("cudaload_probe_stage_message", i) or "",
                            float(opt("cudaload_probe_stage_ms", i) or 0.0)))
    devices = []
    for i in range(opt("cudaload_probe_device_count") or 0):
        devices.append(Device(opt("cudaload_probe_device_name", i) or "",
                              opt("cudaload_probe_device_capability", i) or 0,
                              int(opt("cudaload_probe_device_memory_mib", i) or 0),
                              opt("cudaload_probe_device_uuid", i) or ""))
    return Probe(
        gpu_ok=verdict == C.CUDALOAD_GPU_OK,
        verdict="gpu" if verdict == C.CUDALOAD_GPU_OK else "cpu",
        reason=C.REASON_NAMES.get(reason, "unknown(%d)" % reason), reason_code=reason,
        summary=opt("cudaload_probe_summary") or "", stages=stages,
        driver_path=opt("cudaload_probe_driver_path") or "",
        driver_version=opt("cudaload_probe_driver_version") or 0,
        runtime_version=opt("cudaload_probe_runtime_version") or 0,
        devices=devices)


# --------------------------------------------------------------------------
# One-call functions
# --------------------------------------------------------------------------

# Windows: directories added with os.add_dll_directory stay added while
# their cookies live.
_dll_directories: List[Any] = []


def _windows_after_preload(report: Report) -> None:
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


def scan(roots: Optional[Iterable[PathLike]] = None,
         site_packages: Optional[Iterable[PathLike]] = None,
         defaults: bool = True, target: str = "host") -> Report:
    """Scan the roots, this interpreter's site folders and (with
    ``defaults``) the default roots. Loads nothing. Returns a Report whose
    ``libraries`` and ``roots`` say what was found where; ``table()`` and
    ``scan_dict()`` print it as ``cudaload scan`` does."""
    with Context(roots, site_packages, defaults, target) as ctx:
        ctx.scan()
        return ctx.report()


def preload(require: Specs, roots: Optional[Iterable[PathLike]] = None,
            site_packages: Optional[Iterable[PathLike]] = None,
            defaults: bool = True, rtld_global: bool = False,
            all_sublibs: bool = False, check: bool = True) -> Report:
    """Scan, plan and load the requirements by absolute path. Raises
    UnsatisfiedError / LoadFailedError / ConflictError (with ``.detail``
    and ``.report``) unless ``check`` is false."""
    with Context(roots, site_packages, defaults) as ctx:
        ctx.require(require)
        ctx.scan()
        report = ctx.preload(rtld_global, all_sublibs, check)
    _windows_after_preload(report)
    return report


def setup(require: Specs = (), roots: Optional[Iterable[PathLike]] = None,
          site_packages: Optional[Iterable[PathLike]] = None,
          isolate: bool = False, probe: bool = False, *,
          defaults: bool = True, rtld_global: bool = False,
          all_sublibs: bool = False, probe_timeout: Optional[float] = None,
          check: bool = True) -> Report:
    """Make the required CUDA libraries load: scan, plan, preload, and
    optionally probe, in one call. Call it before ``import torch`` (or any
    module that loads cuDNN/cuBLAS).

    Args:
        require: specs such as ``["cudnn=8", "cudnn=9", "cublas=12"]``.
        roots: folders searched first (absolute paths).
        site_packages: Python site folders to search; None means this
            interpreter's (default_site_packages()), so a venv's NVIDIA
            wheels are found with no arguments.
        isolate: you will open the consumers of a required major isolated
            (isolated_import(), isolated_open()), so another major already
            in the global symbol scope is reported in ``report.conflicts``
            instead of raising ConflictError.
        probe: also run the GPU probe; its answer is ``report.probe``.
        defaults: also search the C library's default roots.
        rtld_global: load RTLD_GLOBAL (never with two majors of a family).
        all_sublibs: preload every cuDNN sub-library, not the minimal set.
        probe_timeout: run the probe in a child process killed after this
            many seconds (None: in this process).
        check: raise on failure (default); otherwise return the Report with
            ``ok`` false and the reason in ``error``.

    Returns:
        A Report: every file planned, why, what was loaded from where,
        the conflicts, and the probe.
    """
    report = preload(require, roots, site_packages, defaults, rtld_global,
                     all_sublibs, check=False)
    conflict_only = report.status == C.CUDALOAD_E_CONFLICT and isolate
    if not report.ok and not conflict_only and check:
        message = "cudaload.setup: %s" % report.status_text
        if report.error:
            message += ("\n" if "\n" in report.error else ": ") + report.error
        if report.status == C.CUDALOAD_E_CONFLICT:
            message += ("\nOpen the consumers with cudaload.isolated_import() and call "
                        "setup(..., isolate=True), or keep the other major out of the "
                        "global scope (no RTLD_GLOBAL).")
        raise error_for_status(report.status)(
            message, status=report.status, status_text=report.status_text,
            detail=report.error, function="cudaload_preload", report=report)
    if probe:
        with Context(roots, site_packages, defaults) as ctx:
            ctx.require(require)
            report.probe = ctx.probe(out_of_process=probe_timeout is not None,
                                     timeout=probe_timeout or 0.0)
    return report


def probe(require: Specs = (), roots: Optional[Iterable[PathLike]] = None,
          site_packages: Optional[Iterable[PathLike]] = None,
          defaults: bool = True, out_of_process: bool = False,
          timeout: float = 0.0, driver: Optional[PathLike] = None) -> Probe:
    """Answer "may I use the GPU?": the staged probe of cudaload_probe_run().
    Raises MissingFunctionError if this libcudaload has no probe."""
    with Context(roots, site_packages, defaults) as ctx:
        ctx.require(require)
        if driver is not None:
            ctx.set_driver(driver)
        return ctx.probe(out_of_process, timeout)


def doctor(require: Specs = (), roots: Optional[Iterable[PathLike]] = None,
           site_packages: Optional[Iterable[PathLike]] = None,
           defaults: bool = True, format: str = "text", probe: bool = False,
           color: bool = False, probe_out_of_process: bool = False) -> DoctorReport:
    """The whole diagnosis, as ``cudaload doctor`` prints it:
    ``print(cudaload.doctor())``. Raises MissingFunctionError if this
    libcudaload has no doctor."""
    with Context(roots, site_packages, defaults) as ctx:
        ctx.require(require)
        return ctx.doctor(format, probe, color, probe_out_of_process)


def env_prepend(require: Specs, roots: Optional[Iterable[PathLike]] = None,
                site_packages: Optional[Iterable[PathLike]] = None,
                defaults: bool = True) -> str:
    """Put the planned libraries' folders first on the search-path variable
    (LD_LIBRARY_PATH on Linux, PATH on Windows) of this process, both in the
    C environment (cudaload_env_apply) and in ``os.environ`` (a snapshot a
    C-level setenv leaves stale). Returns the new value.

    On Linux this reaches the processes started afterwards (subprocess),
    not this process's own loader, which read LD_LIBRARY_PATH at start: use
    setup() for this process. On Windows it changes what later
    LoadLibrary("name.dll") calls search.
    """
    with Context(roots, site_packages, defaults) as ctx:
        ctx.require(require)
        ctx.scan()
        ctx.plan()
        name = ctx.env_name()
        value = ctx.env_compose(os.environ.get(name))
        ctx.env_apply()
    os.environ[name] = value
    return value


def inspect(path: PathLike) -> FileInfo:
    """Read an ELF or PE file's headers without loading it."""
    lib = _load_default()
    file_path = os.fspath(path)
    status, handle = lib.inspect(file_path)
    if status != C.CUDALOAD_OK or handle is None:
        _raise(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_inspect", file_path)
    try:
        def get(name: str, *args: Any) -> Any:
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

    def __exit__(self, *exc: Any) -> None:
        if not self._locked:
            return
        try:
            if self._previous is not None:
                sys.setdlopenflags(self._previous)
        finally:
            self._locked = False
            _dlopen_lock.release()

    def __call__(self, function: Any) -> Any:
        import functools

        @functools.wraps(function)
        def isolated(*args: Any, **kwargs: Any) -> Any:
            with _IsolatedImport():
                return function(*args, **kwargs)
        return isolated


def isolated_import() -> _IsolatedImport:
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


def isolated_open(path: PathLike) -> "ctypes.CDLL":
    """Open a shared library with cudaload_dlopen_isolated() (Linux:
    RTLD_DEEPBIND) and return it as a ctypes.CDLL."""
    import ctypes
    lib = _load_default()
    file_path = os.fspath(path)
    handle = lib.call("cudaload_dlopen_isolated", file_path)
    if handle is None:
        _raise(lib, C.CUDALOAD_E_LOAD_FAILED, "cudaload_dlopen_isolated", file_path)
    return ctypes.CDLL(file_path, handle=lib.pointer_value(handle))


def symbol_provider(library: Union["ctypes.CDLL", int], symbol: str) -> Optional[str]:
    """The file that provides ``symbol`` to a loaded library (a ctypes.CDLL
    or a dlopen handle), as the dynamic loader resolves it; None if none."""
    lib = _load_default()
    if isinstance(library, int):
        handle: Any = library
        if lib.backend == "cffi":
            handle = lib.ffi.cast("void *", library)
    else:
        handle = lib.handle_of(library)
    return lib.call("cudaload_symbol_provider", handle, symbol)
