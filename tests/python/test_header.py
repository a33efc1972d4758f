# SPDX-License-Identifier: MIT
"""The two backends cannot drift from include/cudaload.h.

The CFFI backend's declarations are parsed from the header at import time;
the ctypes backend's signatures and the shared constants are written out in
Python and checked here, function by function, against the same parse.
"""

import ctypes
import importlib.util
import os

import pytest

from conftest import BINDINGS, HEADER



def _load(name):
    """A module of the package by file, without importing the package (which
    would open the library)."""
    spec = importlib.util.spec_from_file_location(
        "cudaload_test_" + name, os.path.join(BINDINGS, "cudaload", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_constants = _load("_constants")
_ctypes_backend = _load("_ctypes_backend")
_header = _load("_header")

# C type (as the parser normalises it) -> the ctypes type the backend must use.
EXPECTED_CTYPES = {
    "int": ctypes.c_int,
    "unsigned": ctypes.c_uint,
    "size_t": ctypes.c_size_t,
    "double": ctypes.c_double,
    "unsigned long long": ctypes.c_ulonglong,
    "const char *": ctypes.c_char_p,
    "void *": ctypes.c_void_p,
    "const void *": ctypes.c_void_p,
    "char **": ctypes.POINTER(ctypes.c_char_p),
    "void": None,
}
EXPECTED_CTYPES["long"] = ctypes.c_long
EXPECTED_CTYPES["long long"] = ctypes.c_longlong
EXPECTED_CTYPES["const char *const *"] = ctypes.POINTER(ctypes.c_char_p)
EXPECTED_CTYPES["size_t *"] = ctypes.POINTER(ctypes.c_size_t)
EXPECTED_CTYPES["const char **"] = ctypes.POINTER(ctypes.c_char_p)
EXPECTED_CTYPES["void **"] = ctypes.POINTER(ctypes.c_void_p)
EXPECTED_CTYPES["int *"] = ctypes.POINTER(ctypes.c_int)
for handle in ("cudaload_ctx", "cudaload_file", "cudaload_probe", "cudaload_explain"):
    EXPECTED_CTYPES[handle + " *"] = ctypes.c_void_p
    EXPECTED_CTYPES["const " + handle + " *"] = ctypes.c_void_p
    EXPECTED_CTYPES[handle + " **"] = ctypes.POINTER(ctypes.c_void_p)


def signature_differences(header: _header.Header) -> list:
    """Every way the ctypes table differs from the header."""
    problems = []
    table = _ctypes_backend.SIGNATURES
    for fn in header.functions:
        if fn.name not in table:
            problems.append("%s: in the header, not in the ctypes backend" % fn.name)
            continue
        restype, argtypes = table[fn.name]
        if fn.restype not in EXPECTED_CTYPES:
            problems.append("%s: return type %r has no ctypes mapping in this test"
                            % (fn.name, fn.restype))
        elif restype is not EXPECTED_CTYPES[fn.restype]:
            problems.append("%s: returns %s, ctypes says %s" % (fn.name, fn.restype, restype))
        if len(argtypes) != len(fn.argtypes):
            problems.append("%s: %d arguments in the header, %d in ctypes"
                            % (fn.name, len(fn.argtypes), len(argtypes)))
            continue
        for i, (c_type, py_type) in enumerate(zip(fn.argtypes, argtypes)):
            if EXPECTED_CTYPES.get(c_type, "?") is not py_type:
                problems.append("%s: argument %d is %s, ctypes says %s" % (fn.name, i, c_type, py_type))
    names = {fn.name for fn in header.functions}
    for name in table:
        if name not in names:
            problems.append("%s: in the ctypes backend, not in the header" % name)
    return problems


def test_every_header_function_has_a_matching_ctypes_signature(backend):
    header = _header.load_header(HEADER)
    assert len(header.functions) >= 50, "the parser found too few functions: %d" % len(header.functions)
    assert signature_differences(header) == []


def test_a_changed_header_is_caught(backend):
    """The check above fails on drift: a new function, a changed argument."""
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    grown = text.replace("#ifdef __cplusplus\n}",
                         "CUDALOAD_API int cudaload_new_thing(cudaload_ctx *ctx, double x);\n"
                         "#ifdef __cplusplus\n}")
    assert any("cudaload_new_thing" in p for p in signature_differences(_header.parse_header(grown)))
    changed = text.replace("CUDALOAD_API int cudaload_set_target(cudaload_ctx *ctx, int target);",
                           "CUDALOAD_API int cudaload_set_target(cudaload_ctx *ctx, double target);")
    assert changed != text
    assert any("cudaload_set_target" in p for p in signature_differences(_header.parse_header(changed)))


def test_constants_match_the_header(backend):
    header = _header.load_header(HEADER)
    ours = {k: v for k, v in vars(_constants).items() if k.startswith("CUDALOAD_")}
    assert header.constants, "no constants parsed from the header"
    missing = sorted(set(header.constants) - set(ours))
    assert missing == [], "constants of the header missing from cudaload._constants"
    different = {k: (ours[k], header.constants[k]) for k in header.constants if ours[k] != header.constants[k]}
    assert different == {}, "constants that differ (python, header)"
    extra = sorted(set(ours) - set(header.constants))
    assert extra == [], "constants in cudaload._constants that the header lacks"


def test_cffi_declarations_are_the_headers(backend):
    """The cdef the CFFI backend uses is generated from the header and
    accepted by cffi; every header function is declared in it."""
    cffi = pytest.importorskip("cffi", reason="the cffi backend needs the cffi package")
    header = _header.load_header(HEADER)
    ffi = cffi.FFI()
    ffi.cdef(header.cdef())
    for fn in header.functions:
        assert "%s(" % fn.name in header.cdef()
    assert ffi.sizeof("size_t") == ctypes.sizeof(ctypes.c_size_t)


def test_the_package_finds_a_header(backend):
    path = _header.find_header()
    assert path is not None, "no header in %s" % _header.header_search_paths()
    assert os.path.samefile(path, HEADER) or open(path).read() == open(HEADER).read()
