"""The order test files start in (tests/support/file_order.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import pytest

from tests.support.file_order import heaviest_first


@dataclass
class _Item:
    nodeid: str


def _order(nodeids: list[str], recorded: dict[str, float]) -> list[str]:
    items = cast(list[pytest.Item], [_Item(n) for n in nodeids])
    return [item.nodeid for item in heaviest_first(items, recorded)]


def test_recorded_files_run_heaviest_first_and_keep_their_tests_in_order() -> None:
    nodeids = ["a.py::one", "a.py::two", "b.py::one", "c.py::one", "c.py::two"]
    recorded = {"a.py": 2.0, "b.py": 90.0, "c.py": 10.0}
    assert _order(nodeids, recorded) == [
        "b.py::one",
        "c.py::one",
        "c.py::two",
        "a.py::one",
        "a.py::two",
    ]


def test_an_unrecorded_file_counts_its_tests_at_the_median_seconds_a_test() -> None:
    # Median of a.py's 1 s and b.py's 10 s a test: 5.5 s, so new.py's 3 tests are 16.5 s.
    nodeids = ["a.py::x", "b.py::x", "new.py::1", "new.py::2", "new.py::3"]
    recorded = {"a.py": 1.0, "b.py": 10.0}
    assert _order(nodeids, recorded)[:3] == ["new.py::1", "new.py::2", "new.py::3"]
    assert _order(nodeids, recorded)[3:] == ["b.py::x", "a.py::x"]


def test_with_nothing_recorded_the_files_with_most_tests_go_first() -> None:
    nodeids = ["a.py::1", "b.py::1", "b.py::2"]
    assert _order(nodeids, {}) == ["b.py::1", "b.py::2", "a.py::1"]
