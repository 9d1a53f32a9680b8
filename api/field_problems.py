"""A 422's validation problems as `FieldProblem`s: which input, what is wrong, the bound.

Pydantic says each problem in English of its own ("String should have at most 998
characters"); a client that shows refusals to people needs the same facts as data,
to say them in its user's language. Its error types are mapped here to the small
vocabulary of `core.errors.FieldCode`, with the bound its context carries.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.errors import FieldCode, FieldProblem

_TOO_LONG = {"string_too_long", "too_long", "bytes_too_long"}
_TOO_SHORT = {"string_too_short", "too_short", "bytes_too_short"}
_FORMAT_PARSES = ("date", "datetime", "time", "timedelta", "url", "uuid")
_CODES: dict[str, FieldCode] = {
    "missing": "missing",
    "missing_argument": "missing",
    "less_than_equal": "too_large",
    "less_than": "too_large",
    "greater_than_equal": "too_small",
    "greater_than": "too_small",
    "string_pattern_mismatch": "format",
    "literal_error": "choice",
    "enum": "choice",
    "extra_forbidden": "unknown",
    "unexpected_keyword_argument": "unknown",
}
# The parts of a location where FastAPI says where a value came from.
_SOURCES = frozenset({"body", "query", "path", "header", "cookie"})
# Pydantic names each member of a union it tried in the location, after the field:
# `int`, `str`, `constrained-int`, `literal['unlimited']`, `function-after[...]`.
_PLAIN_TAGS = frozenset({"str", "int", "float", "bool", "bytes", "list", "dict", "none"})
_TAG = re.compile(r"\[|^constrained-|^function-")
# When a union's members disagree, the most telling problem wins.
_BOUNDS: frozenset[FieldCode] = frozenset(
    {"too_long", "too_short", "too_large", "too_small", "format", "missing"}
)


def _is_union_tag(part: object) -> bool:
    return isinstance(part, str) and (part in _PLAIN_TAGS or bool(_TAG.search(part)))


def _field(loc: Sequence[object]) -> str:
    """The dotted name: FastAPI's source word first (`body`, `query`…) left out, and
    the union members named after the field (a field called `body` stays)."""
    parts = [str(p) for p in (loc[1:] if loc and loc[0] in _SOURCES else loc)]
    return ".".join(parts[:1] + [p for p in parts[1:] if not _is_union_tag(p)])


def _inclusive(context: Mapping[str, Any], kind: str) -> int | None:
    """The bound as the largest or smallest value allowed: `lt=5` is at most 4."""
    for key, step in (("le", 0), ("ge", 0), ("lt", -1), ("gt", 1)):
        value = context.get(key)
        if key[0] == kind and isinstance(value, int) and not isinstance(value, bool):
            return value + step
    return None


def _code_and_limit(kind: str, context: Mapping[str, Any]) -> tuple[FieldCode, int | None]:
    if kind in _TOO_LONG:
        return "too_long", context.get("max_length")
    if kind in _TOO_SHORT:
        return "too_short", context.get("min_length")
    code = _CODES.get(kind)
    if code == "too_large":
        return code, _inclusive(context, "l")
    if code == "too_small":
        return code, _inclusive(context, "g")
    if code is not None:
        return code, None
    if kind.endswith("_parsing") and kind.removesuffix("_parsing") in _FORMAT_PARSES:
        return "format", None
    if kind.endswith(("_type", "_parsing")) or kind in {"int_from_float", "bool_parsing"}:
        return "type", None
    return "invalid", None


def _merge(first: FieldProblem, other: FieldProblem) -> FieldProblem:
    """Two problems of one field from the members of a union it matched none of."""
    if first.code in _BOUNDS:
        return first
    if other.code in _BOUNDS:
        return other
    return first if first.code == other.code == "type" else FieldProblem(first.field, "invalid")


def field_problems(errors: Iterable[Mapping[str, Any]]) -> list[FieldProblem]:
    """One problem per named field, in pydantic's order; a problem with the body as a
    whole (not an object at all) names no field and is left to the message."""
    found: dict[str, FieldProblem] = {}
    for error in errors:
        name = _field(tuple(error.get("loc", ())))
        if not name:
            continue
        code, limit = _code_and_limit(str(error.get("type", "")), error.get("ctx") or {})
        problem = FieldProblem(name, code, limit if isinstance(limit, int) else None)
        found[name] = _merge(found[name], problem) if name in found else problem
    return list(found.values())
