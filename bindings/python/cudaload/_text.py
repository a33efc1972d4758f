# SPDX-License-Identifier: MIT
"""Text for people: a value from outside (a path, a version read from a
file, a driver's string, a message that quotes them) shown as the cudaload
tool and the C library's text reports show it, escaped by the library
itself (cudaload_escape_text(), lib/common/text_escape.c): the rule is
written once, in C, and the package keeps no copy of it.
"""

import os

from . import _constants as C
from ._library import load_default

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only, never at run time
    from typing import Any


def _utf8_text(value: str) -> str:
    """``value`` (a str from the C library, or a path given by the user) as
    the text of its bytes read as UTF-8, each byte that is not UTF-8 as the
    surrogate U+DC80..U+DCFF (surrogateescape). On POSIX the bytes are
    os.fsencode()'s, the operating system's, so this is ``value`` itself
    under a UTF-8 file-system encoding."""
    return _bytes_of(value).decode("utf-8", "surrogateescape")


def _bytes_of(value: str) -> bytes:
    """The bytes a str stands for: os.fsencode()'s (a name from the disk
    comes back as its own bytes); for a str that is no file name (the
    Windows file-system codec refuses lone surrogates), UTF-8 with each
    escaped byte given back, and any other lone surrogate as the three
    bytes UTF-8 would give it (not UTF-8, so shown escaped)."""
    try:
        return os.fsencode(value)
    except UnicodeEncodeError:
        pass
    try:
        return value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate no byte stands for
        return b"".join(char.encode("utf-8", "surrogatepass")
                        if 0xD800 <= ord(char) < 0xDC80 or 0xDD00 <= ord(char) <= 0xDFFF
                        else char.encode("utf-8", "surrogateescape") for char in value)


def _shown(value: str, keep_newlines: bool = False, lib: "Any" = None) -> str:
    """``value`` as the cudaload tool shows a value from outside to people:
    control characters and bytes that are not UTF-8 as \\xNN, C1 controls
    as \\u00NN, so that nothing in a folder name reaches a terminal that
    would obey it (ESC sequences, CR hiding a line). ``keep_newlines``:
    "\\n" stays (multi-line messages). The exact values stay in the
    records' fields. ``lib``: the library to ask (default: the one in
    use). A libcudaload older than CUDALOAD_1.6 has no escaping to ask
    for: then every character that is not printable ASCII is escaped as
    Python's ascii() escapes it (stricter than the library, and no copy of
    its rule), so that a message about an error is never lost to a second
    one."""
    lib = lib if lib is not None else load_default()
    if not lib.has("cudaload_escape_text"):
        text = _utf8_text(value)
        return "\n".join(ascii(line)[1:-1]
                         for line in (text.split("\n") if keep_newlines else [text]))
    flags = C.CUDALOAD_ESCAPE_KEEP_NEWLINES if keep_newlines else 0
    status, text = lib.escape_text(_bytes_of(value), flags)
    if status != C.CUDALOAD_OK or text is None:
        from ._errors import raise_last
        raise_last(lib, status or C.CUDALOAD_E_NO_MEMORY, "cudaload_escape_text")
    return text
