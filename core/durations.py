"""Durations as people write them: `90`, `90s`, `15m`, `1h`, `7d`, `2w`."""

from __future__ import annotations

import re
from datetime import timedelta

from core.errors import InvalidRequest

MAX_DURATION = timedelta(days=3650)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_PATTERN = re.compile(r"^\s*(\d{1,9})\s*([smhdw]?)\s*$", re.IGNORECASE)


def parse_duration(value: str | int | float) -> timedelta:
    """Seconds (a number) or a number with a unit; must be positive."""
    if isinstance(value, bool):
        raise InvalidRequest("a duration must be a number of seconds or text like '1h'")
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        match = _PATTERN.match(value)
        if match is None:
            raise InvalidRequest(
                f"invalid duration {value!r}: use seconds or a number with s, m, h, d or w"
            )
        seconds = float(int(match.group(1)) * _UNITS[(match.group(2) or "s").lower()])
    if not seconds > 0:
        raise InvalidRequest("a duration must be positive")
    if seconds > MAX_DURATION.total_seconds():
        raise InvalidRequest(f"a duration is at most {MAX_DURATION.days} days")
    return timedelta(seconds=seconds)
