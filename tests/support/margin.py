"""A pure function's liveness bound: it returns within a margin, or the test fails there.

Tests never assert how long something took (docs/testing.md): the margin is far above
any linear run on a saturated machine, so only a run that hangs or is quadratic on a
hostile input (a parser that backtracks, a loop that rescans) goes past it. The work
runs in a daemon thread, so a run that never ends fails the test instead of hanging it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["MARGIN", "within_margin"]

T = TypeVar("T")
MARGIN = 30.0  # seconds


def within_margin(work: Callable[[], T]) -> T:
    """`work()`'s value; the test fails if it has not returned within MARGIN."""
    outcome: dict[str, T] = {}
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the test's thread
            failure.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(MARGIN)
    assert not thread.is_alive(), "did not return within the margin"
    if failure:
        raise failure[0]
    return outcome["value"]
