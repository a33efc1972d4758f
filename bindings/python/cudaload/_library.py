# SPDX-License-Identifier: MIT
"""Finding and opening libcudaload, with the backend of choice.

Search order: the file named by CUDALOAD_LIBRARY; the copy shipped inside
the package (cudaload/_lib/libcudaload.so.1, cudaload/_lib/cudaload.dll);
the system loader, by name. The first one that opens and is a libcudaload
of this package's major is used. When none does, the ImportError lists
every place and why each failed.

Two checks come before a file is used, both cheap enough for ``import
cudaload`` (a few ``stat`` calls and two symbol lookups, no scan):

- A path is handed to the OS loader only if ``os.stat`` says it is a
  regular file. ``dlopen`` opens what it is given with a blocking ``open``:
  a FIFO would hang the import forever, and a device or a folder is never a
  library. The file is not opened here (opening a FIFO is what blocks).
  For a bare name, which the loader looks up itself, the entries of
  LD_LIBRARY_PATH (the search folders a user, or whoever set the
  environment, controls) are checked the same way.
- The opened file must export cudaload_version_number and
  cudaload_version_string, and its major must be this package's: another
  library (CUDALOAD_LIBRARY=libm.so.6) would otherwise fail at its first
  call with a bare KeyError naming a function.
"""

import _thread
import os
import stat
import sys

# No ``from __future__ import annotations``: importing the __future__ module
# costs about as much as this module (``import cudaload`` imports this one
# and the backend only). Annotations naming typing types are strings, and
# typing is imported for type checkers only.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only (typing is slow to import)
    from typing import Any, Callable, List, Optional, Tuple

__all__ = ["BACKENDS", "open_library", "library_candidates", "default_backend",
           "load_default", "set_default", "need"]

BACKENDS = ("ctypes", "cffi")

# The major of the libcudaload this package is written for: that of
# _version.__version__ (not imported here: ``import cudaload`` must not
# import _version; tests/python/test_hardening.py keeps the two equal).
# cudaload_version_number() is major * 10000 + minor * 100 + patch.
EXPECTED_MAJOR = 0

# What os.stat() says a path is, for the messages (S_ISREG is the only kind
# that is opened).
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def _file_names() -> "List[str]":
    if sys.platform == "win32":
        return ["cudaload.dll"]
    if sys.platform == "darwin":
        return ["libcudaload.1.dylib", "libcudaload.dylib"]
    return ["libcudaload.so.1"]


def library_candidates() -> "List[Tuple[str, str]]":
    """(what, path-or-name) pairs in search order."""
    out: List[Tuple[str, str]] = []
    env = os.environ.get("CUDALOAD_LIBRARY")
    if env:
        out.append(("CUDALOAD_LIBRARY", env))
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib")
    for name in _file_names():
        out.append(("inside the package", os.path.join(here, name)))
    for name in _file_names():
        out.append(("the system loader", name))
    return out


def _not_a_regular_file(path: str) -> "Optional[str]":
    """None when ``path`` is a regular file (symbolic links followed);
    otherwise why not ("no such file", "not a regular file (a FIFO)", ...).
    Only stat(): opening a FIFO blocks until a writer comes."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return "no such file" if isinstance(exc, FileNotFoundError) else (
            exc.strerror or str(exc))
    if stat.S_ISREG(mode):
        return None
    for test, kind in _KINDS:
        if test(mode):
            return "not a regular file (%s)" % kind
    return "not a regular file"


def _planted_on_search_path(name: str) -> "Optional[str]":
    """For a bare name the OS loader searches: the first LD_LIBRARY_PATH
    entry holding ``name``, if that is not a regular file (the loader would
    open it, and block on a FIFO), as "FOLDER/NAME: not a regular file (a
    FIFO)"; else None. The loader's other places (the executable's
    RUNPATH, ld.so.cache, the system folders) are the system's and are not
    checked. Linux and the BSDs; elsewhere None."""
    if sys.platform == "win32" or sys.platform == "darwin":
        return None
    value = os.environ.get("LD_LIBRARY_PATH")
    if not value:
        return None
    # ld.so splits LD_LIBRARY_PATH on ':' and ';'; an empty entry is the
    # current folder.
    for entry in value.replace(";", ":").split(":"):
        path = os.path.join(entry or ".", name)
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode):
            return None  # what the loader finds first: fine
        return "%s: %s" % (path, _not_a_regular_file(path))
    return None


def _check_version(library: "Any") -> "Optional[str]":
    """None when the opened ``library`` is a libcudaload of EXPECTED_MAJOR;
    otherwise what it is instead. Two symbol lookups and two calls, without
    binding the API (``library.version()`` of each backend)."""
    number, text = library.version()
    if number is None or text is None:
        return ("a shared library, but not libcudaload: it exports no %s (expected "
                "libcudaload %d.x)" % ("cudaload_version_number" if number is None
                                       else "cudaload_version_string", EXPECTED_MAJOR))
    if number // 10000 != EXPECTED_MAJOR:
        return ("libcudaload %s (major %d), but this cudaload package needs libcudaload %d.x"
                % (text, number // 10000, EXPECTED_MAJOR))
    return None


def default_backend() -> str:
    """The backend CUDALOAD_BACKEND names, else "ctypes"."""
    name = os.environ.get("CUDALOAD_BACKEND", "").strip().lower() or "ctypes"
    if name not in BACKENDS:
        raise ImportError("CUDALOAD_BACKEND=%r: expected one of %s"
                          % (name, ", ".join(BACKENDS)))
    return name


def _opener(backend: str) -> "Callable[[str], Any]":
    if backend == "ctypes":
        from . import _ctypes_backend
        return _ctypes_backend.load
    if backend == "cffi":
        try:
            from . import _cffi_backend
        except ImportError as exc:
            raise ImportError("cudaload: the cffi backend needs the cffi package "
                              "(pip install cffi): %s" % exc) from exc
        return _cffi_backend.load
    raise ImportError("cudaload: unknown backend %r: expected one of %s"
                      % (backend, ", ".join(BACKENDS)))


def open_library(backend: "Optional[str]" = None, path: "Optional[str]" = None) -> "Any":
    """Open libcudaload with ``backend`` (default: default_backend()).

    ``path`` (a str) names the file to open and skips the search. A file
    is opened only if it is a regular file, and used only if it is a
    libcudaload of this package's major (see the module's docstring).
    Raises ImportError listing every place tried and why it failed.
    """
    backend = backend or default_backend()
    opener = _opener(backend)
    candidates = [("the path given", path)] if path else library_candidates()
    failures: List[str] = []
    for what, candidate in candidates:
        if "\0" in candidate:  # ctypes and CFFI would cut it at the NUL
            failures.append("  %s: %r: embedded NUL character" % (what, candidate))
            continue
        is_file_path = os.path.dirname(candidate) != ""
        why = (_not_a_regular_file(candidate) if is_file_path
               else _planted_on_search_path(candidate))
        if why is not None:
            failures.append("  %s: %s: %s" % (what, candidate, why))
            continue
        try:
            library = opener(candidate)
        except (OSError, FileNotFoundError) as exc:
            failures.append("  %s: %s: %s" % (what, candidate, exc))
            continue
        why = _check_version(library)
        if why is not None:
            failures.append("  %s: %s: %s" % (what, candidate, why))
            continue
        if failures and any(f.startswith("  CUDALOAD_LIBRARY") for f in failures):
            import warnings
            warnings.warn("cudaload: CUDALOAD_LIBRARY could not be used (%s); using %s"
                          % (failures[0].strip(), candidate), RuntimeWarning, stacklevel=3)
        return library
    raise ImportError("cudaload: libcudaload could not be loaded (%s backend); looked in:\n%s\n"
                      "Install the cudaload wheel (it ships the library), or set "
                      "CUDALOAD_LIBRARY to the path of %s (libcudaload %d.x)."
                      % (backend, "\n".join(failures), _file_names()[0], EXPECTED_MAJOR))


# The library the module-level functions use (cudaload.setup(), ...): opened
# by ``import cudaload``, replaced by cudaload.use_backend(). It lives here,
# not in _api, so that ``import cudaload`` opens it without importing _api.
_default_lock = _thread.allocate_lock()
_default: "Any" = None


def load_default() -> "Any":
    """The library in use, opened on first call (default backend, default
    search). Raises ImportError listing every place looked."""
    global _default
    with _default_lock:
        if _default is None:
            _default = open_library()
        return _default


def set_default(library: "Any") -> None:
    """Make ``library`` (an open_library() result) the one in use."""
    global _default
    with _default_lock:
        _default = library


def need(library: "Any", name: str) -> None:
    """Raise MissingFunctionError, naming ``name``, the file and its
    version, when the opened ``library`` does not export ``name`` (a
    libcudaload built before that part of the API)."""
    if not library.has(name):
        from . import _constants as C
        from ._errors import MissingFunctionError
        version = (library.call("cudaload_version_string")
                   if library.has("cudaload_version_string") else "?")
        raise MissingFunctionError(
            "this libcudaload has no %s (%s, version %s): it was built before "
            "that part of the API; update libcudaload" % (name, library.path, version),
            status=C.CUDALOAD_E_UNSUPPORTED, status_text="not supported",
            function=name)
