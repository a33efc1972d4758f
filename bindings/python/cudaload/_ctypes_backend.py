# SPDX-License-Identifier: MIT
"""The ctypes backend (the default): the standard library only.

``SIGNATURES`` spells every function of include/cudaload.h in ctypes types;
tests/python/test_header.py checks it against the header, function by
function and argument by argument. The header itself is never read here:
the ctypes backend's import is this module and the library's dlopen.

Opening the library is its dlopen only: each function is looked up and given
its prototype (``restype``, ``argtypes``) on its first use, so ``import
cudaload`` does not pay for the ~80 functions a program mostly never calls.
"""

import ctypes
import sys

# No ``from __future__ import annotations`` (importing __future__ costs about
# as much as this module): annotations naming typing types are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only (typing is slow to import)
    from typing import Any, Dict, List, Optional, Tuple

__all__ = ["CtypesLibrary"]  # and SIGNATURES, made on access by __getattr__

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

_ctx = ctypes.c_void_p          # cudaload_ctx *, const cudaload_ctx *
_file = ctypes.c_void_p         # cudaload_file *
_probe = ctypes.c_void_p        # cudaload_probe *
_explain = ctypes.c_void_p      # cudaload_explain *
_str = ctypes.c_char_p          # const char *
_bytes = ctypes.c_void_p        # const void * (bytes in)
_size = ctypes.c_size_t
_int = ctypes.c_int
_uint = ctypes.c_uint

# name: (restype, argtypes), in header order, but for the three functions
# with an out-parameter (a pointer to a pointer), which are in
# _out_parameter_signatures(): creating their argument types with
# ctypes.POINTER() costs twice as much as the rest of this table, so it is
# done when one of them is first used. SIGNATURES (module __getattr__ below)
# is every function.
_SIGNATURES: "Dict[str, Tuple[Any, List[Any]]]" = {
    "cudaload_version_number": (_uint, []),
    "cudaload_version_string": (_str, []),
    "cudaload_strerror": (_str, [_int]),
    "cudaload_last_error": (_str, []),
    "cudaload_create": (_ctx, [_uint]),
    "cudaload_destroy": (None, [_ctx]),
    "cudaload_add_root": (_int, [_ctx, _str]),
    "cudaload_add_environment_root": (_int, [_ctx, _str]),
    "cudaload_set_target": (_int, [_ctx, _int]),
    "cudaload_scan": (_int, [_ctx]),
    "cudaload_root_count": (_size, [_ctx]),
    "cudaload_root_path": (_str, [_ctx, _size]),
    "cudaload_root_origin": (_str, [_ctx, _size]),
    "cudaload_root_tier": (_str, [_ctx, _size]),
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
    "cudaload_library_machine": (_str, [_ctx, _size]),
    "cudaload_library_include_dir": (_str, [_ctx, _size]),
    "cudaload_library_root": (_size, [_ctx, _size]),
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
    "cudaload_file_flags": (_int, [_file]),
    "cudaload_file_version_count": (_size, [_file]),
    "cudaload_file_version_name": (_str, [_file, _size]),
    "cudaload_file_version_is_default": (_int, [_file, _size]),
    "cudaload_file_need_count": (_size, [_file]),
    "cudaload_file_need_file": (_str, [_file, _size]),
    "cudaload_file_need_version_count": (_size, [_file, _size]),
    "cudaload_file_need_version": (_str, [_file, _size, _size]),
    "cudaload_file_symbol_count": (_size, [_file, _int]),
    "cudaload_file_symbol_name": (_str, [_file, _int, _size]),
    "cudaload_file_symbol_version": (_str, [_file, _int, _size]),
    "cudaload_file_symbol_library": (_str, [_file, _int, _size]),
    "cudaload_file_symbol_flags": (_int, [_file, _int, _size]),
    "cudaload_require": (_int, [_ctx, _str]),
    "cudaload_requirement_count": (_size, [_ctx]),
    "cudaload_requirement_text": (_str, [_ctx, _size]),
    "cudaload_require_for": (_int, [_ctx, _str]),
    "cudaload_requirement_origin": (_str, [_ctx, _size]),
    "cudaload_program_file_count": (_size, [_ctx]),
    "cudaload_program_file": (_str, [_ctx, _size]),
    "cudaload_plan": (_int, [_ctx, _uint]),
    "cudaload_plan_state_name": (_str, [_int]),
    "cudaload_root_status_name": (_str, [_int]),
    "cudaload_env_warning": (_str, [_ctx, _size]),
    "cudaload_env_warning_fatal": (_int, [_ctx, _size]),
    "cudaload_env_change_count": (_size, [_ctx]),
    "cudaload_env_apply_changes": (_int, [_ctx]),
    "cudaload_probe_serve": (_int, [_ctx, _str]),
    "cudaload_doctor_problem_count": (_size, [_ctx]),
    "cudaload_problem_kind_name": (_str, [_int]),
    "cudaload_fact_name": (_str, [_int]),
    "cudaload_fact_source_name": (_str, [_int]),
    "cudaload_doctor_problem_kind": (_int, [_ctx, _size]),
    "cudaload_doctor_problem_text": (_str, [_ctx, _size]),
    "cudaload_doctor_problem_fact": (_str, [_ctx, _size, _int, ctypes.POINTER(_int)]),
    "cudaload_doctor_fix_step_count": (_size, [_ctx, _size]),
    "cudaload_doctor_fix_step_action": (_int, [_ctx, _size, _size]),
    "cudaload_doctor_fix_step_arg": (_str, [_ctx, _size, _size, _size]),
    "cudaload_doctor_fix_step_env": (_str, [_ctx, _size, _size, _size]),
    "cudaload_doctor_fix_step_note": (_str, [_ctx, _size, _size]),
    "cudaload_fix_step_check": (_int, [_ctx, _size, _size]),
    "cudaload_fix_step_command": (_str, [_ctx, _size, _size]),
    "cudaload_fix_step_run": (_int, [_ctx, _size, _size]),
    "cudaload_format_supported": (_int, [_int]),
    "cudaload_requirement_library": (_size, [_ctx, _size]),
    "cudaload_read_error_message": (_int, [_ctx, _str]),
    "cudaload_read_error_text": (_int, [_ctx, _bytes, _size]),
    "cudaload_error_message_count": (_size, [_ctx]),
    "cudaload_error_message_kind": (_int, [_ctx, _size]),
    "cudaload_error_message_kind_name": (_str, [_int]),
    "cudaload_error_message_quote": (_str, [_ctx, _size]),
    "cudaload_error_message_file": (_str, [_ctx, _size]),
    "cudaload_error_message_needed_by": (_str, [_ctx, _size]),
    "cudaload_error_message_requirement": (_str, [_ctx, _size]),
    "cudaload_error_message_diagnosis": (_str, [_ctx, _size]),
    "cudaload_error_message_fact": (_str, [_ctx, _size, _int]),
    "cudaload_error_message_fact_source": (_str, [_ctx, _size, _int]),
    "cudaload_error_message_fact_name": (_str, [_int]),
    "cudaload_plan_count": (_size, [_ctx]),
    "cudaload_plan_path": (_str, [_ctx, _size]),
    "cudaload_plan_name": (_str, [_ctx, _size]),
    "cudaload_plan_major": (_int, [_ctx, _size]),
    "cudaload_plan_reason": (_str, [_ctx, _size]),
    "cudaload_plan_state": (_int, [_ctx, _size]),
    "cudaload_plan_loaded_path": (_str, [_ctx, _size]),
    "cudaload_plan_cuda_major": (_int, [_ctx]),
    "cudaload_plan_cuda_reason": (_str, [_ctx]),
    "cudaload_plan_warning_count": (_size, [_ctx]),
    "cudaload_plan_warning": (_str, [_ctx, _size]),
    "cudaload_preload": (_int, [_ctx, _uint]),
    "cudaload_env_name": (_str, []),
    "cudaload_env_compose": (_str, [_ctx, _str]),
    "cudaload_env_apply": (_int, [_ctx]),
    "cudaload_conflict_count": (_size, [_ctx]),
    "cudaload_conflict_path": (_str, [_ctx, _size]),
    "cudaload_conflict_text": (_str, [_ctx, _size]),
    "cudaload_dlopen_isolated": (ctypes.c_void_p, [_str]),
    "cudaload_open_isolated": (_int, [_ctx, _str, _uint, ctypes.POINTER(ctypes.c_void_p)]),
    "cudaload_symbol_provider": (_str, [ctypes.c_void_p, _str]),
    "cudaload_probe_verdict_name": (_str, [_int]),
    "cudaload_probe_reason_name": (_str, [_int]),
    "cudaload_probe_stage_status_name": (_str, [_int]),
    "cudaload_set_driver": (_int, [_ctx, _str]),
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
    "cudaload_probe_device_driver_model": (_int, [_probe, _size]),
    "cudaload_probe_driver_model_name": (_str, [_int]),
    "cudaload_probe_device_kernel_timeout": (_int, [_probe, _size]),
    "cudaload_probe_device_compute_mode": (_int, [_probe, _size]),
    "cudaload_probe_compute_mode_name": (_str, [_int]),
    "cudaload_probe_device_integrated": (_int, [_probe, _size]),
    "cudaload_probe_device_free_mib": (ctypes.c_longlong, [_probe, _size]),
    "cudaload_free": (None, [ctypes.c_void_p]),
    "cudaload_load_manifest": (_int, [_ctx, _str]),
    "cudaload_manifest_preload_flags": (_uint, [_ctx]),
    "cudaload_manifest_probe": (_int, [_ctx]),
    "cudaload_explain_free": (None, [_explain]),
    "cudaload_explain_object_count": (_size, [_explain]),
    "cudaload_explain_object_path": (_str, [_explain, _size]),
    "cudaload_explain_object_family": (_str, [_explain, _size]),
    "cudaload_explain_object_version": (_str, [_explain, _size]),
    "cudaload_explain_need_count": (_size, [_explain, _size]),
    "cudaload_explain_need_name": (_str, [_explain, _size, _size]),
    "cudaload_explain_need_lazy": (_int, [_explain, _size, _size]),
    "cudaload_explain_need_path": (_str, [_explain, _size, _size]),
    "cudaload_explain_need_rule": (_str, [_explain, _size, _size]),
    "cudaload_explain_problem_count": (_size, [_explain]),
    "cudaload_explain_problem": (_str, [_explain, _size]),
}


def _out_parameter_signatures() -> "Dict[str, Tuple[Any, List[Any]]]":
    return {
        "cudaload_inspect": (_int, [_str, ctypes.POINTER(_file)]),
        "cudaload_probe_run": (_int, [_ctx, _uint, ctypes.c_double, ctypes.POINTER(_probe)]),
        "cudaload_probe_report": (_int, [_probe, _int, ctypes.POINTER(ctypes.c_char_p)]),
        "cudaload_doctor": (_int, [_ctx, _int, _uint, ctypes.POINTER(ctypes.c_char_p)]),
        "cudaload_scan_report": (_int, [_ctx, _int, ctypes.POINTER(ctypes.c_char_p)]),
        "cudaload_fix_report": (_int, [_ctx, _int, ctypes.POINTER(ctypes.c_char_p)]),
        "cudaload_inspect_report": (_int, [ctypes.POINTER(ctypes.c_char_p), _size, _int, _uint,
                                           ctypes.POINTER(ctypes.c_char_p)]),
        "cudaload_env_warnings": (_int, [_ctx, ctypes.POINTER(ctypes.c_size_t)]),
        "cudaload_env_check": (_int, [_ctx, _uint, ctypes.POINTER(ctypes.c_size_t)]),
        "cudaload_env_change": (_str, [_ctx, _size, ctypes.POINTER(ctypes.c_char_p)]),
        "cudaload_env_value": (_int, [_ctx, _str, ctypes.POINTER(ctypes.c_char_p)]),
        "cudaload_explain_files": (_int, [_ctx, ctypes.POINTER(ctypes.c_char_p), _size, _uint,
                                          ctypes.POINTER(_explain)]),
        "cudaload_explain_pid": (_int, [_ctx, ctypes.c_long, ctypes.POINTER(_explain)]),
        "cudaload_explain_report": (_int, [_explain, _int, ctypes.POINTER(ctypes.c_char_p)]),
    }


def _signature(name: str) -> "Tuple[Any, List[Any]]":
    """(restype, argtypes) of ``name``; KeyError for a name not in the API."""
    signature = _SIGNATURES.get(name)
    return signature if signature is not None else _out_parameter_signatures()[name]


def _all_signatures() -> "Dict[str, Tuple[Any, List[Any]]]":
    return {**_SIGNATURES, **_out_parameter_signatures()}


def __getattr__(name: str) -> "Any":
    """``SIGNATURES``: (restype, argtypes) of every function of the API."""
    if name == "SIGNATURES":
        return _all_signatures()
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def _encode(value: "Any") -> "Any":
    if isinstance(value, str):
        return value.encode(_ENCODING, _ERRORS)
    return value


def _decode(value: "Any") -> "Any":
    if isinstance(value, bytes):
        return value.decode(_ENCODING, _ERRORS)
    return value


_UNBOUND = object()  # _functions.get() default: not looked up yet


class CtypesLibrary:
    """libcudaload opened with ctypes. Functions the file lacks are listed in
    ``missing`` and fail only when called."""

    backend = "ctypes"

    def __init__(self, path: str) -> None:
        self.path = path
        self._dll = ctypes.CDLL(path)
        # name -> the function with its prototype, or None where the file
        # does not export it; filled by _function() on first use.
        self._functions: "Dict[str, Any]" = {}

    def _function(self, name: str) -> "Any":
        """The function ``name`` with its prototype set (None when the file
        lacks it), looked up once."""
        function = self._functions.get(name, _UNBOUND)
        if function is _UNBOUND:
            restype, argtypes = _signature(name)
            try:
                function = self._dll[name]  # not getattr(): no CDLL attribute kept
            except AttributeError:  # not exported (an older libcudaload)
                function = None
            else:
                function.restype = restype
                function.argtypes = argtypes
            self._functions[name] = function
        return function

    def version(self) -> "Tuple[Optional[int], Optional[str]]":
        """(cudaload_version_number(), cudaload_version_string()), each None
        when the file does not export it: _library's check that the file is
        a libcudaload, at import. Fresh function objects, outside
        ``_functions``, so that nothing of the API is bound by the check."""
        try:
            number = self._dll["cudaload_version_number"]
        except AttributeError:
            number = None
        else:
            number.restype, number.argtypes = _uint, []
        try:
            text = self._dll["cudaload_version_string"]
        except AttributeError:
            text = None
        else:
            text.restype, text.argtypes = _str, []
        value = text() if text is not None else None
        return (number() if number is not None else None,
                _decode(value) if value is not None else None)

    @property
    def missing(self) -> "List[str]":
        """The API's functions this file does not export (looks every one
        up)."""
        return [name for name in _all_signatures() if self._function(name) is None]

    def has(self, name: str) -> bool:
        """Whether the loaded file exports ``name``."""
        return self._function(name) is not None

    def _callable(self, name: str) -> "Any":
        function = self._function(name)
        if function is None:  # a KeyError naming it, as before
            raise KeyError(name)
        return function

    def call(self, name: str, *args: "Any") -> "Any":
        """Call ``name``: str arguments go in encoded as os.fsencode() does
        (see _ENCODING), ``const char *`` results come back as str decoded
        the same way (None for NULL), pointers as int or None."""
        function = self._functions.get(name) or self._callable(name)
        return _decode(function(*[_encode(a) for a in args]))

    def function(self, name: str) -> "Any":
        """``name`` itself, for loops that call it many times (the report
        readers): no conversion of arguments (handles and ints only) or
        results (``const char *`` comes back as the backend's value, which
        text() turns into str). KeyError when the file lacks it."""
        return self._functions.get(name) or self._callable(name)

    @staticmethod
    def text(value: "Optional[bytes]") -> "Optional[str]":
        """A ``const char *`` result of a function(): str, or None for NULL."""
        return None if value is None else value.decode(_ENCODING, _ERRORS)

    def null(self) -> "Any":
        """The NULL handle of this backend."""
        return None

    def inspect(self, path: str) -> "Tuple[int, Any]":
        """cudaload_inspect(path, &out): (status, handle or None)."""
        out = ctypes.c_void_p()
        status = self._callable("cudaload_inspect")(_encode(path), ctypes.byref(out))
        return status, out.value

    def open_isolated(self, ctx: "Any", path: str, flags: int) -> "Tuple[int, Any]":
        """cudaload_open_isolated(ctx, path, flags, &out): (status, the
        dlopen handle or None)."""
        out = ctypes.c_void_p()
        status = self._callable("cudaload_open_isolated")(ctx, _encode(path), flags,
                                                          ctypes.byref(out))
        return status, out.value

    def probe_run(self, ctx: "Any", flags: int, timeout_s: float) -> "Tuple[int, Any]":
        """cudaload_probe_run(ctx, flags, timeout_s, &out)."""
        out = ctypes.c_void_p()
        status = self._callable("cudaload_probe_run")(ctx, flags, timeout_s, ctypes.byref(out))
        return status, out.value

    def explain(self, ctx: "Any", paths: "List[str]", flags: int,
                pid: int) -> "Tuple[int, Any]":
        """cudaload_explain_files (pid 0) or cudaload_explain_pid: (status,
        handle or None)."""
        out = ctypes.c_void_p()
        if pid:
            status = self._callable("cudaload_explain_pid")(ctx, pid, ctypes.byref(out))
        else:
            array = (ctypes.c_char_p * max(len(paths), 1))(*[_encode(p) for p in paths])
            status = self._callable("cudaload_explain_files")(ctx, array, len(paths), flags,
                                                              ctypes.byref(out))
        return status, out.value

    def _report(self, name: str, handle: "Any", fmt: int) -> "Tuple[int, Optional[str]]":
        """name(handle, fmt, &out) (cudaload_probe_report,
        cudaload_explain_report, cudaload_scan_report, cudaload_fix_report):
        the text, freed here."""
        out = ctypes.c_char_p()
        status = self._callable(name)(handle, fmt, ctypes.byref(out))
        text = _decode(out.value) if out.value is not None else None
        if out.value is not None:
            self._callable("cudaload_free")(ctypes.cast(out, ctypes.c_void_p))
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

    def doctor(self, ctx: "Any", fmt: int, flags: int) -> "Tuple[int, Optional[str]]":
        """cudaload_doctor(ctx, fmt, flags, &out): the text, freed here."""
        out = ctypes.c_char_p()
        status = self._callable("cudaload_doctor")(ctx, fmt, flags, ctypes.byref(out))
        text = _decode(out.value) if out.value is not None else None
        if out.value is not None and self.has("cudaload_free"):
            self._callable("cudaload_free")(ctypes.cast(out, ctypes.c_void_p))
        return status, text

    def problem_fact(self, ctx: "Any", i: int, fact: int) -> "Tuple[Optional[str], int]":
        """cudaload_doctor_problem_fact(ctx, i, fact, &source): (value or
        None, its CUDALOAD_FROM_* source)."""
        source = ctypes.c_int(0)
        value = self._callable("cudaload_doctor_problem_fact")(ctx, i, fact, ctypes.byref(source))
        return _decode(value) if value is not None else None, source.value

    def env_check(self, ctx: "Any", flags: int) -> "Tuple[int, int]":
        """cudaload_env_check(ctx, flags, &count): (status, count)."""
        count = ctypes.c_size_t(0)
        status = self._callable("cudaload_env_check")(ctx, flags, ctypes.byref(count))
        return status, count.value

    def env_change(self, ctx: "Any", i: int) -> "Tuple[Optional[str], Optional[str]]":
        """cudaload_env_change(ctx, i, &value): (name or None, value or None)."""
        value = ctypes.c_char_p()
        name = self._callable("cudaload_env_change")(ctx, i, ctypes.byref(value))
        return (_decode(name) if name is not None else None,
                _decode(value.value) if value.value is not None else None)

    def handle_of(self, dll: "Any") -> "Any":
        """The dlopen handle of a ctypes.CDLL, as this backend passes it."""
        return dll._handle

    def pointer_value(self, pointer: "Any") -> int:
        """A pointer this backend returned, as an int (0 for NULL)."""
        return int(pointer or 0)


def load(path: str) -> CtypesLibrary:
    """Open libcudaload at ``path`` (a file or a name for the loader)."""
    return CtypesLibrary(path)
