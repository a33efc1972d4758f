"""Finding and opening libcudaload, with the backend of choice.

Search order: the file named by CUDALOAD_LIBRARY; the copy shipped inside
the package (cudaload/_lib/libcudaload.so.1, cudaload/_lib/cudaload.dll);
the system loader, by name. The first one that opens is used. When none
opens, the ImportError lists every place and why each failed.
"""

import _thread
import os
import sys

# No ``from __future__ import annotations``: importing the __future__ module
# costs about as much as this module (``import cudaload`` imports this one
# and the backend only). Annotations naming typing types are strings, and
# typing is imported for type checkers only.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only (typing is slow to import)
    from typing import Any, Callable, List, Optional, Tuple

__all__ = ["BACKENDS", "open_library", "library_candidates", "default_backend",
           "load_default", "set_default"]

BACKENDS = ("ctypes", "cffi")


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

    ``path`` names the file to open and skips the search. Raises ImportError
    listing every place tried and why it failed.
    """
    backend = backend or default_backend()
    opener = _opener(backend)
    candidates = [("the path given", path)] if path else library_candidates()
    failures: List[str] = []
    for what, candidate in candidates:
        is_file_path = os.path.dirname(candidate) != ""
        if is_file_path and not os.path.exists(candidate):
            failures.append("  %s: %s: no such file" % (what, candidate))
            continue
        try:
            library = opener(candidate)
        except (OSError, FileNotFoundError) as exc:
            failures.append("  %s: %s: %s" % (what, candidate, exc))
            continue
        if failures and any(f.startswith("  CUDALOAD_LIBRARY") for f in failures):
            import warnings
            warnings.warn("cudaload: CUDALOAD_LIBRARY could not be used (%s); using %s"
                          % (failures[0].strip(), candidate), RuntimeWarning, stacklevel=3)
        return library
    raise ImportError("cudaload: libcudaload could not be loaded (%s backend); looked in:\n%s\n"
                      "Install the cudaload wheel (it ships the library), or set "
                      "CUDALOAD_LIBRARY to the path of %s."
                      % (backend, "\n".join(failures), _file_names()[0]))


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
