# SPDX-License-Identifier: MIT
"""The base of the package's records (Report, Root, Library, Probe,
Problem, ...): what the dataclasses gave, without their import cost.

Plain classes with __slots__ rather than dataclasses: importing dataclasses
(and the inspect, ast, dis, tokenize... it pulls in) and generating the
methods of a dozen classes cost more than everything else of ``import
cudaload``. _Record gives them keyword and positional construction, field
order, repr, equality and to_dict(). The fields' types are those of
__init__'s arguments (type checkers infer the attributes from them):
class-level annotations would cost each class an __annotations__ dict at
import. This module imports nothing: every other module of the package may
import it.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - type checkers only, never at run time
    from typing import Any, Dict, Tuple


def _plain(value: "Any") -> "Any":
    """dataclasses.asdict()'s conversion: records to dicts, recursively."""
    if isinstance(value, _Record):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


class _Record:
    """Base of the report records: ``__slots__`` lists the fields in order."""

    __slots__ = ()  # type: Tuple[str, ...]

    def to_dict(self) -> "Dict[str, Any]":
        """Every field as plain data, in field order (for json.dumps)."""
        return {name: _plain(getattr(self, name)) for name in self.__slots__}

    def _values(self) -> "Tuple[Any, ...]":
        return tuple(getattr(self, name) for name in self.__slots__)

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % (name, getattr(self, name)) for name in self.__slots__))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclasses were
