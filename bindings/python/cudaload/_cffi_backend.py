# SPDX-License-Identifier: MIT
"""The CFFI backend, in ABI mode (``ffi.dlopen``): nothing is compiled.

Its declarations are read from include/cudaload.h (the copy shipped in the
package, or the source tree's), so they are the header's by construction.

Opening is split in two, for import time: importing cffi's parser
(pycparser) and ``ffi.cdef`` of the header cost tens of milliseconds, far
more than the rest of ``import cudaload``. So at import (``load()``) the
library is only dlopen'ed, with cffi's own C loader (the ``_cffi_backend``
extension, no parser), and the header is found; a library that does not
open, or a missing header, is an error there, as before. The header is
parsed, ``ffi.cdef``'d and bound on the first call (or ``ffi``/``missing``).
"""

import _thread
import sys

# cffi's C extension: an ImportError here tells the user to install cffi
# (see _library._opener). The full ``cffi`` package (and its parser) is
# imported on first use.
import _cffi_backend as _cffi_c

from . import _header

# No ``from __future__ import annotations`` (importing __future__ costs more
# than this module): annotations naming typing types are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only (typing is slow to import)
    from typing import Any, Dict, List, Optional, Tuple

    from ._header import Header

__all__ = ["CffiLibrary"]

# How ``char *`` crosses the boundary. POSIX: the C library passes the
# operating system's bytes through (a path is what readdir() and realpath()
# gave it), so text is decoded and encoded as os.fsdecode()/os.fsencode() do
# (the file-system encoding with surrogateescape): a folder name that is not
# UTF-8 comes back as a str that os.fsencode() turns into its exact bytes,
# and such a str goes in as those bytes. Windows: the C API speaks UTF-8 (it
# converts to and from the wide API); surrogateescape keeps a decode from
# ever failing.
if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    _ENCODING, _ERRORS = "utf-8", "surrogateescape"
else:
    _ENCODING, _ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()

_lock = _thread.RLock()
_parsed: "Optional[Tuple[Any, Header]]" = None


def _get_ffi(header_path: "Optional[str]" = None) -> "Tuple[Any, Header]":
    """The FFI with the header's declarations, made once per process."""
    global _parsed
    with _lock:
        if _parsed is None:
            import cffi
            header = _header.load_header(header_path)
            ffi = cffi.FFI()
            ffi.cdef(header.cdef())
            _parsed = (ffi, header)
        return _parsed


class CffiLibrary:
    """libcudaload opened with ``cffi.FFI().dlopen``. Functions the file lacks
    are listed in ``missing`` and fail only when called."""

    backend = "cffi"

    def __init__(self, path: str) -> None:
        self.path = path
        # What ffi.dlopen(path) does first: raises OSError when the file
        # does not open, so open_library() goes on to the next place.
        self._handle = _cffi_c.load_library(path, 0)
        self._header_path = _header.find_header()
        if self._header_path is None:
            raise FileNotFoundError(
                "cudaload.h not found; looked in: " + ", ".join(_header.header_search_paths()))
        self._bound = False
        self._fns: Dict[str, Any] = {}
        self._returns_string: Dict[str, bool] = {}
        self._missing: List[str] = []

    def version(self) -> "Tuple[Optional[int], Optional[str]]":
        """(cudaload_version_number(), cudaload_version_string()), each None
        when the file does not export it: _library's check that the file is
        a libcudaload, at import. Through cffi's C loader with types made by
        hand, so the header is not parsed for it."""
        uint = _cffi_c.new_primitive_type("unsigned int")
        char_p = _cffi_c.new_pointer_type(_cffi_c.new_primitive_type("char"))
        try:
            number = self._handle.load_function(
                _cffi_c.new_function_type((), uint, False), "cudaload_version_number")()
        except AttributeError:  # "function/symbol ... not found"
            number = None
        try:
            result = self._handle.load_function(
                _cffi_c.new_function_type((), char_p, False), "cudaload_version_string")()
        except AttributeError:
            text = None
        else:
            text = _cffi_c.string(result).decode(_ENCODING, _ERRORS) if result else None
        return number, text

    def _bind(self) -> None:
        """Parse the header, dlopen through the FFI and look up every
        function (once)."""
        if self._bound:
            return
        with _lock:
            if self._bound:
                return
            ffi, header = _get_ffi(self._header_path)
            lib = ffi.dlopen(self.path)
            functions: Dict[str, Any] = {}
            returns_string: Dict[str, bool] = {}
            missing: List[str] = []
            for fn in header.functions:
                try:
                    functions[fn.name] = getattr(lib, fn.name)
                except AttributeError:
                    missing.append(fn.name)
                    continue
                returns_string[fn.name] = fn.restype in ("const char *", "char *")
            self._ffi, self._header, self._lib = ffi, header, lib
            self._fns, self._returns_string, self._missing = functions, returns_string, missing
            self._bound = True

    @property
    def _functions(self) -> "Dict[str, Any]":
        """name -> the bound function, for the functions the file exports."""
        self._bind()
        return self._fns

    @property
    def ffi(self) -> "Any":
        """The ``cffi.FFI`` with the header's declarations."""
        self._bind()
        return self._ffi

    @property
    def header(self) -> "Header":
        """The parse of the header the declarations come from."""
        self._bind()
        return self._header

    @property
    def missing(self) -> "List[str]":
        """The header's functions this file does not export."""
        self._bind()
        return self._missing

    def has(self, name: str) -> bool:
        """Whether the loaded file exports ``name``."""
        return name in self._functions

    def _arg(self, value: "Any") -> "Any":
        if isinstance(value, str):
            return value.encode(_ENCODING, _ERRORS)
        if value is None:
            return self.ffi.NULL
        return value

    def _string(self, value: "Any") -> "Optional[str]":
        if value == self.ffi.NULL:
            return None
        return self.ffi.string(value).decode(_ENCODING, _ERRORS)

    def call(self, name: str, *args: "Any") -> "Any":
        """Call ``name``: str arguments go in encoded as os.fsencode() does
        (see _ENCODING), ``const char *`` results come back as str decoded
        the same way (None for NULL), pointers as cdata or None."""
        result = self._functions[name](*[self._arg(a) for a in args])
        if self._returns_string[name]:
            return self._string(result)
        if isinstance(result, self.ffi.CData) and result == self.ffi.NULL:
            return None
        return result

    def function(self, name: str) -> "Any":
        """``name`` itself, for loops that call it many times (the report
        readers): no conversion of arguments (handles and ints only) or
        results (``const char *`` comes back as a ``char *`` cdata, which
        text() turns into str). KeyError when the file lacks it."""
        return self._functions[name]

    def text(self, value: "Any") -> "Optional[str]":
        """A ``const char *`` result of a function(): str, or None for NULL."""
        return self._string(value)

    def null(self) -> "Any":
        """The NULL handle of this backend."""
        return None

    def inspect(self, path: str) -> "Tuple[int, Any]":
        """cudaload_inspect(path, &out): (status, handle or None)."""
        out = self.ffi.new("cudaload_file **")
        status = self._functions["cudaload_inspect"](self._arg(path), out)
        return status, (None if out[0] == self.ffi.NULL else out[0])

    def open_isolated(self, ctx: "Any", path: str, flags: int) -> "Tuple[int, Any]":
        """cudaload_open_isolated(ctx, path, flags, &out): (status, the
        dlopen handle or None)."""
        out = self.ffi.new("void **")
        status = self._functions["cudaload_open_isolated"](ctx, self._arg(path), flags, out)
        return status, (None if out[0] == self.ffi.NULL else out[0])

    def probe_run(self, ctx: "Any", flags: int, timeout_s: float) -> "Tuple[int, Any]":
        """cudaload_probe_run(ctx, flags, timeout_s, &out)."""
        out = self.ffi.new("cudaload_probe **")
        status = self._functions["cudaload_probe_run"](ctx, flags, timeout_s, out)
        return status, (None if out[0] == self.ffi.NULL else out[0])

    def doctor(self, ctx: "Any", fmt: int, flags: int) -> "Tuple[int, Optional[str]]":
        """cudaload_doctor(ctx, fmt, flags, &out): the text, freed here."""
        out = self.ffi.new("char **")
        status = self._functions["cudaload_doctor"](ctx, fmt, flags, out)
        text = self._string(out[0])
        if out[0] != self.ffi.NULL and self.has("cudaload_free"):
            self._functions["cudaload_free"](out[0])
        return status, text

    def problem_fact(self, ctx: "Any", i: int, fact: int) -> "Tuple[Optional[str], int]":
        """cudaload_doctor_problem_fact(ctx, i, fact, &source): (value or
        None, its CUDALOAD_FROM_* source)."""
        source = self.ffi.new("int *")
        value = self._functions["cudaload_doctor_problem_fact"](ctx, i, fact, source)
        return self._string(value), source[0]

    def env_check(self, ctx: "Any", flags: int) -> "Tuple[int, int]":
        """cudaload_env_check(ctx, flags, &count): (status, count)."""
        count = self.ffi.new("size_t *")
        status = self._functions["cudaload_env_check"](ctx, flags, count)
        return status, count[0]

    def env_change(self, ctx: "Any", i: int) -> "Tuple[Optional[str], Optional[str]]":
        """cudaload_env_change(ctx, i, &value): (name or None, value or None)."""
        value = self.ffi.new("char **")
        name = self._functions["cudaload_env_change"](ctx, i, value)
        return self._string(name), self._string(value[0])

    def explain(self, ctx: "Any", paths: "List[str]", flags: int,
                pid: int) -> "Tuple[int, Any]":
        """cudaload_explain_files (pid 0) or cudaload_explain_pid: (status,
        handle or None)."""
        out = self.ffi.new("cudaload_explain **")
        if pid:
            status = self._functions["cudaload_explain_pid"](ctx, pid, out)
        else:
            keep = [self.ffi.new("char[]", self._arg(p)) for p in paths]
            array = self.ffi.new("const char *[]", keep or [self.ffi.NULL])
            status = self._functions["cudaload_explain_files"](ctx, array, len(paths),
                                                               flags, out)
        return status, (None if out[0] == self.ffi.NULL else out[0])

    def _report(self, name: str, handle: "Any", fmt: int) -> "Tuple[int, Optional[str]]":
        """name(handle, fmt, &out) (cudaload_probe_report,
        cudaload_explain_report, cudaload_scan_report, cudaload_fix_report):
        the text, freed here."""
        out = self.ffi.new("char **")
        status = self._functions[name](handle, fmt, out)
        text = self._string(out[0])
        if out[0] != self.ffi.NULL:
            self._functions["cudaload_free"](out[0])
        return status, text

    def probe_report(self, handle: "Any", fmt: int) -> "Tuple[int, Optional[str]]":
        """cudaload_probe_report(handle, fmt, &out): the text, freed here."""
        return self._report("cudaload_probe_report", handle, fmt)

    def explain_report(self, handle: "Any", fmt: int) -> "Tuple[int, Optional[str]]":
        """cudaload_explain_report(handle, fmt, &out): the text, freed here."""
        return self._report("cudaload_explain_report", handle, fmt)

    def scan_report(self, ctx: "Any", fmt: int) -> "Tuple[int, Optional[str]]":
        """cudaload_scan_report(ctx, fmt, &out): the text, freed here."""
        return self._report("cudaload_scan_report", ctx, fmt)

    def fix_report(self, ctx: "Any", fmt: int) -> "Tuple[int, Optional[str]]":
        """cudaload_fix_report(ctx, fmt, &out): the text, freed here."""
        return self._report("cudaload_fix_report", ctx, fmt)

    def handle_of(self, dll: "Any") -> "Any":
        """The dlopen handle of a ctypes.CDLL, as a ``void *`` cdata."""
        return self.ffi.cast("void *", dll._handle)

    def pointer_value(self, pointer: "Any") -> int:
        """A pointer this backend returned, as an int (0 for NULL)."""
        if pointer is None:
            return 0
        return int(self.ffi.cast("uintptr_t", pointer))


def load(path: str) -> "CffiLibrary":
    """Open libcudaload at ``path`` (a file or a name for the loader)."""
    return CffiLibrary(path)
