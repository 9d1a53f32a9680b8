"""Pydantic's validation problems as `{field, code, limit}` (api/field_problems.py),
from real pydantic errors of a model with each kind of constraint."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from api.field_problems import field_problems
from core.errors import FieldCode, FieldProblem

DOCS = Path(__file__).parents[2] / "docs" / "api.md"


class Item(BaseModel):
    name: str


class Shapes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field("", min_length=2, max_length=5, pattern="^[a-z]*$")
    items: list[Item] = Field(default_factory=list, max_length=2)
    count: Annotated[int, Field(ge=1, le=10)] = 1
    open_bound: Annotated[int, Field(gt=0, lt=100)] = 1
    ratio: Annotated[float, Field(le=0.5)] = 0
    mode: Literal["a", "b"] = "a"
    either: str | int | None = None
    bounded_or_word: Annotated[int, Field(ge=3)] | Literal["all"] = "all"


def problems(data: dict[str, Any]) -> list[FieldProblem]:
    with pytest.raises(ValidationError) as caught:
        Shapes.model_validate(data)
    return field_problems(caught.value.errors())


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"text": "abcdef"}, FieldProblem("text", "too_long", 5)),
        ({"text": "a"}, FieldProblem("text", "too_short", 2)),
        ({"text": "AB"}, FieldProblem("text", "format")),
        ({"text": 3}, FieldProblem("text", "type")),
        ({"items": [{"name": "x"}] * 3}, FieldProblem("items", "too_long", 2)),
        ({"items": [{"name": "x"}, {}]}, FieldProblem("items.1.name", "missing")),
        ({"count": 11}, FieldProblem("count", "too_large", 10)),
        ({"count": 0}, FieldProblem("count", "too_small", 1)),
        ({"open_bound": 100}, FieldProblem("open_bound", "too_large", 99)),
        ({"open_bound": 0}, FieldProblem("open_bound", "too_small", 1)),
        ({"ratio": 0.75}, FieldProblem("ratio", "too_large")),  # no integer bound to give
        ({"mode": "c"}, FieldProblem("mode", "choice")),
        ({"surprise": 1}, FieldProblem("surprise", "unknown")),
        # A union the value matched no member of: one problem, the most telling.
        ({"either": [1]}, FieldProblem("either", "type")),
        ({"bounded_or_word": 2}, FieldProblem("bounded_or_word", "too_small", 3)),
        ({"bounded_or_word": "some"}, FieldProblem("bounded_or_word", "invalid")),
    ],
)
def test_each_kind_of_problem(data: dict[str, Any], expected: FieldProblem) -> None:
    assert problems(data) == [expected]


def test_problems_keep_their_order_and_a_location_names_no_source() -> None:
    errors: list[dict[str, Any]] = [
        {"type": "missing", "loc": ("body", "to")},
        {"type": "string_type", "loc": ("body", "body")},  # a mail's `body`
        {"type": "int_parsing", "loc": ("query", "limit")},
        {
            "type": "string_too_long",
            "loc": ("header", "idempotency-key"),
            "ctx": {"max_length": 255},
        },
        {"type": "model_attributes_type", "loc": ("body",)},  # the body as a whole: no field
    ]
    assert field_problems(errors) == [
        FieldProblem("to", "missing"),
        FieldProblem("body", "type"),
        FieldProblem("limit", "type"),
        FieldProblem("idempotency-key", "too_long", 255),
    ]


def test_docs_list_every_code() -> None:
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", DOCS.read_text(encoding="utf-8"), re.M))
    assert set(get_args(FieldCode)) <= listed
