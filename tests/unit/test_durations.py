from __future__ import annotations

from datetime import timedelta

import pytest

from core.durations import parse_duration
from core.errors import InvalidRequest


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        (90, 90),
        (1.5, 1.5),
        ("90", 90),
        ("90s", 90),
        ("15m", 900),
        ("1h", 3600),
        ("7d", 604800),
        ("2w", 1209600),
        (" 1H ", 3600),
    ],
)
def test_parses(text: str | int | float, seconds: float) -> None:
    assert parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "h", "1y", "-5", "0", 0, -1, "1.5h", True, "1 h x"])
def test_refuses(text: str | int) -> None:
    with pytest.raises(InvalidRequest):
        parse_duration(text)
