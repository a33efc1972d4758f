# SPDX-License-Identifier: MIT
"""Exceptions: one class per C status code, all subclasses of Error."""

from . import _constants as C

# No ``from __future__ import annotations`` (importing __future__ costs more
# than this module): annotations naming typing types are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only (typing is slow to import)
    from typing import Any, Dict, Optional, Type

__all__ = [
    "Error", "InvalidArgumentError", "OutOfMemoryError", "ReadError",
    "MalformedError", "NotFoundError", "UnsupportedError", "NotAFileError",
    "BadSpecError", "UnsatisfiedError", "LoadFailedError", "ConflictError",
    "MissingFunctionError", "UnreadableMessageError", "error_for_status", "raise_last",
]


class Error(Exception):
    """A libcudaload call failed.

    Attributes:
        status: the C status code (``CUDALOAD_E_*``).
        status_text: ``cudaload_strerror(status)``.
        detail: the thread's last-error text at the time of the failure: the
            file or folder, the reason, what was searched and the fix.
        function: the C function that failed (``"cudaload_preload"``), or "".
        report: the Report built before the failure (setup()), or None.
    """

    status: int = -1

    def __init__(self, message: str, status: "Optional[int]" = None,
                 status_text: str = "", detail: str = "", function: str = "",
                 report: "Any" = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status
        self.status_text = status_text
        self.detail = detail
        self.function = function
        self.report = report


class InvalidArgumentError(Error, ValueError):
    """CUDALOAD_E_INVALID_ARGUMENT: NULL, empty or relative where a value or
    an absolute path is needed."""
    status = C.CUDALOAD_E_INVALID_ARGUMENT


class OutOfMemoryError(Error, MemoryError):
    """CUDALOAD_E_NO_MEMORY."""
    status = C.CUDALOAD_E_NO_MEMORY


class ReadError(Error, OSError):
    """CUDALOAD_E_IO: a file or folder could not be read."""
    status = C.CUDALOAD_E_IO


class MalformedError(Error):
    """CUDALOAD_E_MALFORMED: a file is truncated or malformed."""
    status = C.CUDALOAD_E_MALFORMED


class NotFoundError(Error, LookupError):
    """CUDALOAD_E_NOT_FOUND: no such file, folder or library."""
    status = C.CUDALOAD_E_NOT_FOUND


class UnsupportedError(Error):
    """CUDALOAD_E_UNSUPPORTED: not a format or platform handled."""
    status = C.CUDALOAD_E_UNSUPPORTED


class NotAFileError(Error):
    """CUDALOAD_E_NOT_A_FILE: a folder, FIFO or device, not a file."""
    status = C.CUDALOAD_E_NOT_A_FILE


class BadSpecError(Error, ValueError):
    """CUDALOAD_E_BAD_SPEC: a requirement spec could not be parsed."""
    status = C.CUDALOAD_E_BAD_SPEC


class UnreadableMessageError(BadSpecError):
    """An error text in which cudaload reads no form it knows
    (read_error_message(), doctor(error=...)). ``detail`` says how much was
    read (lines, bytes, encoding) and lists the forms read. A BadSpecError,
    which it was before 0.3, so handlers of that still catch it."""


class UnsatisfiedError(Error):
    """CUDALOAD_E_UNSATISFIED: a requirement has no usable file. ``detail``
    names the requirement, every root searched, every candidate rejected and
    why, and the command that fixes it."""
    status = C.CUDALOAD_E_UNSATISFIED


class LoadFailedError(Error):
    """CUDALOAD_E_LOAD_FAILED: the OS loader refused a planned file."""
    status = C.CUDALOAD_E_LOAD_FAILED


class ConflictError(Error):
    """CUDALOAD_E_CONFLICT: another major of a required family is in the
    global symbol scope; see ``report.conflicts`` for the files and fixes."""
    status = C.CUDALOAD_E_CONFLICT


class MissingFunctionError(UnsupportedError, AttributeError):
    """The libcudaload that was loaded lacks a function of the API (an older
    build); raised when that function is called, never at import."""


_BY_STATUS: "Dict[int, Type[Error]]" = {
    cls.status: cls for cls in (
        InvalidArgumentError, OutOfMemoryError, ReadError, MalformedError,
        NotFoundError, UnsupportedError, NotAFileError, BadSpecError,
        UnsatisfiedError, LoadFailedError, ConflictError)
}


def error_for_status(status: int) -> "Type[Error]":
    """The Error subclass of a C status code (Error for unknown codes)."""
    return _BY_STATUS.get(status, Error)


def raise_last(lib: "Any", status: int, function: str, what: str = "",
               report: "Any" = None) -> None:
    """Raise the Error subclass of ``status``, which ``function`` of the
    opened ``lib`` returned, with the calling thread's last-error text."""
    detail = lib.call("cudaload_last_error") or ""
    status_text = lib.call("cudaload_strerror", status) or ""
    message = "%s%s: %s" % (function, " " + what if what else "", status_text)
    if detail:
        message += "\n" + detail if "\n" in detail else ": " + detail
    raise error_for_status(status)(message, status=status, status_text=status_text,
                                   detail=detail, function=function, report=report)


class CudaloadWarning(UserWarning):
    """What a plan found missing that a chosen library will open by name
    later (cuDNN 8 opens cuBLAS 12): setup() and preload() emit it once,
    and Report.warnings keeps each line."""
