# SPDX-License-Identifier: MIT
"""Read include/cudaload.h into function declarations and constants.

The CFFI backend feeds the declarations to ``ffi.cdef`` (on its first call,
not at import), so it cannot drift from the C API; the tests check the ctypes backend's
signatures and the constants against the same parse.

Only what cudaload.h uses is understood: block and line comments,
preprocessor lines (with backslash continuations), ``#ifdef __cplusplus``
blocks, the ``CUDALOAD_API`` export macro, opaque ``typedef struct``
declarations and function prototypes.
"""

import os

# No ``from __future__ import annotations`` (importing __future__ costs more
# than this module): annotations naming typing types are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only (typing is slow to import)
    from typing import Dict, List, Optional

__all__ = ["Function", "Header", "parse_header", "find_header", "header_search_paths"]

# Importing this module is cheap (os only): the CFFI backend calls
# find_header() when it opens the library and parses the header only on its
# first call; ``re`` is imported by the parse.


class Function:
    """One prototype: ``name``, its return type and argument types, each a
    normalised C type string such as ``"const char *"`` or ``"size_t"``."""

    __slots__ = ("name", "restype", "argtypes")

    def __init__(self, name: str, restype: str, argtypes: "List[str]") -> None:
        self.name = name
        self.restype = restype
        self.argtypes = argtypes

    def __repr__(self) -> str:
        return "Function(name=%r, restype=%r, argtypes=%r)" % (self.name, self.restype, self.argtypes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Function):
            return NotImplemented
        return (self.name, self.restype, self.argtypes) == (other.name, other.restype, other.argtypes)

    __hash__ = None  # type: ignore[assignment]


class Header:
    """The parse of the header: its file, the opaque typedefs, the functions
    in header order and the integer ``#define`` constants."""

    __slots__ = ("path", "typedefs", "functions", "constants")

    def __init__(self, path: str, typedefs: "List[str]", functions: "List[Function]",
                 constants: "Dict[str, int]") -> None:
        self.path = path
        self.typedefs = typedefs
        self.functions = functions
        self.constants = constants

    def __repr__(self) -> str:
        return "Header(path=%r, %d typedefs, %d functions, %d constants)" % (
            self.path, len(self.typedefs), len(self.functions), len(self.constants))

    def cdef(self) -> str:
        """Declarations for ``cffi.FFI.cdef``: typedefs and prototypes."""
        lines = list(self.typedefs)
        for fn in self.functions:
            args = ", ".join(fn.argtypes) if fn.argtypes else "void"
            lines.append("%s %s(%s);" % (fn.restype, fn.name, args))
        return "\n".join(lines) + "\n"


_IDENT = r"[A-Za-z_]\w*$"
_TYPE_WORDS = {"const", "unsigned", "signed", "char", "int", "long", "short",
               "double", "float", "void", "size_t", "struct"}


def normalise_type(text: str) -> str:
    """``const  cudaload_ctx*`` -> ``const cudaload_ctx *``."""
    import re
    text = re.sub(r"\s*\*\s*", " *", text.strip())
    text = re.sub(r"\s+", " ", text)
    return text.replace("* *", "**").strip()


def _strip_name(arg: str) -> str:
    """The type of one parameter declaration (drops the parameter name)."""
    import re
    arg = normalise_type(arg)
    if arg == "void":
        return arg
    head, sep, last = arg.rpartition(" ")
    if sep and re.match(_IDENT, last) and last not in _TYPE_WORDS:
        return normalise_type(head)
    if "*" in arg:
        stars_at = arg.rfind("*")
        tail = arg[stars_at + 1:].strip()
        if tail and re.match(_IDENT, tail):
            return normalise_type(arg[:stars_at + 1])
    return arg


def parse_header(text: str, path: str = "cudaload.h") -> "Header":
    """Parse the text of cudaload.h."""
    import re
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"\\\n", " ", text)
    constants: Dict[str, int] = {}
    kept: List[str] = []
    # Stack of "skip this branch" flags; only __cplusplus branches skip.
    stack: List[bool] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            directive = stripped[1:].strip()
            if directive.startswith(("ifdef", "ifndef", "if ")):
                stack.append(directive.startswith("ifdef") and "__cplusplus" in directive)
            elif directive.startswith(("else", "elif")):
                if stack:
                    stack[-1] = False
            elif directive.startswith("endif"):
                if stack:
                    stack.pop()
            elif not any(stack):
                m = re.match(r"define\s+(CUDALOAD_\w+)\s+\(?\s*(-?)(0[xX][0-9A-Fa-f]+|\d+)[uUlL]*\s*\)?\s*$",
                             directive)
                if m:
                    value = int(m.group(3), 0)
                    constants[m.group(1)] = -value if m.group(2) else value
            continue
        if any(stack):
            continue
        kept.append(line)
    body = " ".join(kept)
    body = re.sub(r"\bCUDALOAD_API\b", " ", body)
    typedefs: List[str] = []
    functions: List[Function] = []
    for statement in body.split(";"):
        statement = " ".join(statement.split())
        if not statement:
            continue
        if statement.startswith("typedef"):
            typedefs.append(statement + ";")
            continue
        m = re.match(r"^(.*?[\s*])(cudaload_\w+)\s*\((.*)\)$", statement)
        if not m:
            raise ValueError("%s: cannot read the declaration %r" % (path, statement))
        restype = normalise_type(m.group(1))
        raw_args = m.group(3).strip()
        args = [] if raw_args in ("", "void") else [_strip_name(a) for a in raw_args.split(",")]
        functions.append(Function(m.group(2), restype, args))
    return Header(path, typedefs, functions, constants)


def header_search_paths() -> "List[str]":
    """Where the header is looked for: inside the package (wheels ship it as
    cudaload/_include/cudaload.h), then the source tree the package sits in
    (bindings/python/cudaload -> include/cudaload.h)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return [
        os.path.join(here, "_include", "cudaload.h"),
        os.path.normpath(os.path.join(here, os.pardir, os.pardir, os.pardir, "include", "cudaload.h")),
    ]


def find_header() -> "Optional[str]":
    """The first header of header_search_paths() that exists, or None."""
    for candidate in header_search_paths():
        if os.path.isfile(candidate):
            return candidate
    return None


def load_header(path: "Optional[str]" = None) -> "Header":
    """Parse the header at ``path`` (default: find_header())."""
    if path is None:
        path = find_header()
        if path is None:
            raise FileNotFoundError(
                "cudaload.h not found; looked in: " + ", ".join(header_search_paths()))
    with open(path, encoding="utf-8") as handle:
        return parse_header(handle.read(), path)
