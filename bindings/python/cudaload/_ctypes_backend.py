"""The ctypes backend (the default): the standard library only.

``SIGNATURES`` spells every function of include/cudaload.h in ctypes types;
tests/python/test_header.py checks it against the header, function by
function and argument by argument. The header itself is never read here:
the ctypes backend's import is this module and the library's dlopen.
"""

from __future__ import annotations

import ctypes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only (typing is slow to import)
    from typing import Any, Dict, List, Optional, Tuple

__all__ = ["CtypesLibrary", "SIGNATURES"]

_ctx = ctypes.c_void_p          # cudaload_ctx *, const cudaload_ctx *
_file = ctypes.c_void_p         # cudaload_file *
_probe = ctypes.c_void_p        # cudaload_probe *
_str = ctypes.c_char_p          # const char *
_size = ctypes.c_size_t
_int = ctypes.c_int
_uint = ctypes.c_uint

# name: (restype, argtypes)
SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    "cudaload_version_number": (_uint, []),
    "cudaload_version_string": (_str, []),
    "cudaload_strerror": (_str, [_int]),
    "cudaload_last_error": (_str, []),
    "cudaload_create": (_ctx, [_uint]),
    "cudaload_destroy": (None, [_ctx]),
    "cudaload_add_root": (_int, [_ctx, _str]),
    "cudaload_set_target": (_int, [_ctx, _int]),
    "cudaload_scan": (_int, [_ctx]),
    "cudaload_root_count": (_size, [_ctx]),
    "cudaload_root_path": (_str, [_ctx, _size]),
    "cudaload_root_origin": (_str, [_ctx, _size]),
    "cudaload_root_status": (_int, [_ctx, _size]),
    "cudaload_library_count": (_size, [_ctx]),
    "cudaload_library_name": (_str, [_ctx, _size]),
    "cudaload_library_family": (_str, [_ctx, _size]),
    "cudaload_library_major": (_int, [_ctx, _size]),
    "cudaload_library_cuda_major": (_int, [_ctx, _size]),
    "cudaload_library_version": (_str, [_ctx, _size]),
    "cudaload_library_version_source": (_str, [_ctx, _size]),
    "cudaload_library_version_file": (_str, [_ctx, _size]),
    "cudaload_library_path": (_str, [_ctx, _size]),
    "cudaload_library_root": (_size, [_ctx, _size]),
    "cudaload_inspect": (_int, [_str, ctypes.POINTER(_file)]),
    "cudaload_file_close": (None, [_file]),
    "cudaload_file_format": (_str, [_file]),
    "cudaload_file_machine": (_str, [_file]),
    "cudaload_file_bits": (_int, [_file]),
    "cudaload_file_soname": (_str, [_file]),
    "cudaload_file_needed_count": (_size, [_file]),
    "cudaload_file_needed": (_str, [_file, _size]),
    "cudaload_file_runpath": (_str, [_file]),
    "cudaload_file_rpath": (_str, [_file]),
    "cudaload_file_version": (_str, [_file]),
    "cudaload_require": (_int, [_ctx, _str]),
    "cudaload_requirement_count": (_size, [_ctx]),
    "cudaload_requirement_text": (_str, [_ctx, _size]),
    "cudaload_plan": (_int, [_ctx, _uint]),
    "cudaload_plan_count": (_size, [_ctx]),
    "cudaload_plan_path": (_str, [_ctx, _size]),
    "cudaload_plan_name": (_str, [_ctx, _size]),
    "cudaload_plan_major": (_int, [_ctx, _size]),
    "cudaload_plan_reason": (_str, [_ctx, _size]),
    "cudaload_plan_state": (_int, [_ctx, _size]),
    "cudaload_plan_loaded_path": (_str, [_ctx, _size]),
    "cudaload_preload": (_int, [_ctx, _uint]),
    "cudaload_env_name": (_str, []),
    "cudaload_env_compose": (_str, [_ctx, _str]),
    "cudaload_env_apply": (_int, [_ctx]),
    "cudaload_conflict_count": (_size, [_ctx]),
    "cudaload_conflict_path": (_str, [_ctx, _size]),
    "cudaload_conflict_text": (_str, [_ctx, _size]),
    "cudaload_dlopen_isolated": (ctypes.c_void_p, [_str]),
    "cudaload_symbol_provider": (_str, [ctypes.c_void_p, _str]),
    "cudaload_set_driver": (_int, [_ctx, _str]),
    "cudaload_probe_run": (_int, [_ctx, _uint, ctypes.c_double, ctypes.POINTER(_probe)]),
    "cudaload_probe_free": (None, [_probe]),
    "cudaload_probe_verdict": (_int, [_probe]),
    "cudaload_probe_reason": (_int, [_probe]),
    "cudaload_probe_summary": (_str, [_probe]),
    "cudaload_probe_stage_count": (_size, [_probe]),
    "cudaload_probe_stage_name": (_str, [_probe, _size]),
    "cudaload_probe_stage_status": (_int, [_probe, _size]),
    "cudaload_probe_stage_message": (_str, [_probe, _size]),
    "cudaload_probe_stage_ms": (ctypes.c_double, [_probe, _size]),
    "cudaload_probe_driver_path": (_str, [_probe]),
    "cudaload_probe_driver_version": (_int, [_probe]),
    "cudaload_probe_runtime_version": (_int, [_probe]),
    "cudaload_probe_device_count": (_size, [_probe]),
    "cudaload_probe_device_name": (_str, [_probe, _size]),
    "cudaload_probe_device_capability": (_int, [_probe, _size]),
    "cudaload_probe_device_memory_mib": (ctypes.c_ulonglong, [_probe, _size]),
    "cudaload_probe_device_uuid": (_str, [_probe, _size]),
    "cudaload_doctor": (_int, [_ctx, _int, _uint, ctypes.POINTER(ctypes.c_char_p)]),
    "cudaload_free": (None, [ctypes.c_void_p]),
    "cudaload_load_manifest": (_int, [_ctx, _str]),
    "cudaload_manifest_preload_flags": (_uint, [_ctx]),
    "cudaload_manifest_probe": (_int, [_ctx]),
}


def _encode(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return value


class CtypesLibrary:
    """libcudaload opened with ctypes. Functions the file lacks are listed in
    ``missing`` and fail only when called."""

    backend = "ctypes"

    def __init__(self, path: str) -> None:
        self.path = path
        self._dll = ctypes.CDLL(path)
        self._functions: Dict[str, Any] = {}
        self.missing: List[str] = []
        for name, (restype, argtypes) in SIGNATURES.items():
            try:
                function = getattr(self._dll, name)
            except AttributeError:
                self.missing.append(name)
                continue
            function.restype = restype
            function.argtypes = argtypes
            self._functions[name] = function

    def has(self, name: str) -> bool:
        """Whether the loaded file exports ``name``."""
        return name in self._functions

    def call(self, name: str, *args: Any) -> Any:
        """Call ``name``: str arguments go in as UTF-8, ``const char *``
        results come back as str (None for NULL), pointers as int or None."""
        return _decode(self._functions[name](*[_encode(a) for a in args]))

    def null(self) -> Any:
        """The NULL handle of this backend."""
        return None

    def inspect(self, path: str) -> Tuple[int, Any]:
        """cudaload_inspect(path, &out): (status, handle or None)."""
        out = ctypes.c_void_p()
        status = self._functions["cudaload_inspect"](_encode(path), ctypes.byref(out))
        return status, out.value

    def probe_run(self, ctx: Any, flags: int, timeout_s: float) -> Tuple[int, Any]:
        """cudaload_probe_run(ctx, flags, timeout_s, &out)."""
        out = ctypes.c_void_p()
        status = self._functions["cudaload_probe_run"](ctx, flags, timeout_s, ctypes.byref(out))
        return status, out.value

    def doctor(self, ctx: Any, fmt: int, flags: int) -> Tuple[int, Optional[str]]:
        """cudaload_doctor(ctx, fmt, flags, &out): the text, freed here."""
        out = ctypes.c_char_p()
        status = self._functions["cudaload_doctor"](ctx, fmt, flags, ctypes.byref(out))
        text = _decode(out.value) if out.value is not None else None
        if out.value is not None and self.has("cudaload_free"):
            self._functions["cudaload_free"](ctypes.cast(out, ctypes.c_void_p))
        return status, text

    def handle_of(self, dll: Any) -> Any:
        """The dlopen handle of a ctypes.CDLL, as this backend passes it."""
        return dll._handle

    def pointer_value(self, pointer: Any) -> int:
        """A pointer this backend returned, as an int (0 for NULL)."""
        return int(pointer or 0)


def load(path: str) -> CtypesLibrary:
    """Open libcudaload at ``path`` (a file or a name for the loader)."""
    return CtypesLibrary(path)


