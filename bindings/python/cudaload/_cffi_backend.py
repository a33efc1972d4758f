"""The CFFI backend, in ABI mode (``ffi.dlopen``): nothing is compiled.

Its declarations are read from include/cudaload.h at import time (the copy
shipped in the package, or the source tree's), so they are the header's by
construction.
"""

from typing import Any, Dict, List, Optional, Tuple

import cffi  # noqa: F401  (ImportError here tells the user to install cffi)

from ._header import Header, load_header

__all__ = ["CffiLibrary"]

_header: Optional[Header] = None
_ffi: Any = None


def _get_ffi() -> Tuple[Any, Header]:
    global _header, _ffi
    if _ffi is None:
        header = load_header()
        ffi = cffi.FFI()
        ffi.cdef(header.cdef())
        _header, _ffi = header, ffi
    assert _header is not None
    return _ffi, _header


class CffiLibrary:
    """libcudaload opened with ``cffi.FFI().dlopen``. Functions the file lacks
    are listed in ``missing`` and fail only when called."""

    backend = "cffi"

    def __init__(self, path: str) -> None:
        self.path = path
        self.ffi, self.header = _get_ffi()
        self._lib = self.ffi.dlopen(path)
        self._functions: Dict[str, Any] = {}
        self._returns_string: Dict[str, bool] = {}
        self.missing: List[str] = []
        for fn in self.header.functions:
            try:
                self._functions[fn.name] = getattr(self._lib, fn.name)
            except AttributeError:
                self.missing.append(fn.name)
                continue
            self._returns_string[fn.name] = fn.restype in ("const char *", "char *")

    def has(self, name: str) -> bool:
        """Whether the loaded file exports ``name``."""
        return name in self._functions

    def _arg(self, value: Any) -> Any:
        if isinstance(value, str):
            return value.encode("utf-8", "surrogateescape")
        if value is None:
            return self.ffi.NULL
        return value

    def _string(self, value: Any) -> Optional[str]:
        if value == self.ffi.NULL:
            return None
        return self.ffi.string(value).decode("utf-8", "surrogateescape")

    def call(self, name: str, *args: Any) -> Any:
        """Call ``name``: str arguments go in as UTF-8, ``const char *``
        results come back as str (None for NULL), pointers as cdata or None."""
        result = self._functions[name](*[self._arg(a) for a in args])
        if self._returns_string[name]:
            return self._string(result)
        if isinstance(result, self.ffi.CData) and result == self.ffi.NULL:
            return None
        return result

    def null(self) -> Any:
        """The NULL handle of this backend."""
        return None

    def inspect(self, path: str) -> Tuple[int, Any]:
        """cudaload_inspect(path, &out): (status, handle or None)."""
        out = self.ffi.new("cudaload_file **")
        status = self._functions["cudaload_inspect"](self._arg(path), out)
        return status, (None if out[0] == self.ffi.NULL else out[0])

    def probe_run(self, ctx: Any, flags: int, timeout_s: float) -> Tuple[int, Any]:
        """cudaload_probe_run(ctx, flags, timeout_s, &out)."""
        out = self.ffi.new("cudaload_probe **")
        status = self._functions["cudaload_probe_run"](ctx, flags, timeout_s, out)
        return status, (None if out[0] == self.ffi.NULL else out[0])

    def doctor(self, ctx: Any, fmt: int, flags: int) -> Tuple[int, Optional[str]]:
        """cudaload_doctor(ctx, fmt, flags, &out): the text, freed here."""
        out = self.ffi.new("char **")
        status = self._functions["cudaload_doctor"](ctx, fmt, flags, out)
        text = self._string(out[0])
        if out[0] != self.ffi.NULL and self.has("cudaload_free"):
            self._functions["cudaload_free"](out[0])
        return status, text

    def handle_of(self, dll: Any) -> Any:
        """The dlopen handle of a ctypes.CDLL, as a ``void *`` cdata."""
        return self.ffi.cast("void *", dll._handle)

    def pointer_value(self, pointer: Any) -> int:
        """A pointer this backend returned, as an int (0 for NULL)."""
        if pointer is None:
            return 0
        return int(self.ffi.cast("uintptr_t", pointer))


def load(path: str) -> CffiLibrary:
    """Open libcudaload at ``path`` (a file or a name for the loader)."""
    return CffiLibrary(path)
